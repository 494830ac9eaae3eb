package slog2.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import org.junit.jupiter.api.Test;
import slog2.api.Category;
import slog2.api.Drawables;

/**
 * Arrow heads sit at the receive (last-vertex) end, including arrows drawn
 * backwards in time or upwards: 9 px before the receive end the head is wide
 * (pixels 2.5 px either side of the line have the arrow colour); 9 px after the
 * send end the line is thin (those pixels are background).
 */
class ArrowTest {
    @Test
    void headsAtReceiveEnd() throws Exception {
        try (Source s = ReaderSource.open(Fx.sample("arrow.slog2"))) {
            Model m = new Model(s);
            Frame f = Frame.load(m, m.tMin, m.tMax);
            int w = 1600, h = 400;
            BufferedImage img = Renderer.image(m, f, w, h, -1);
            Renderer.Layout l = new Renderer.Layout(w, h, f.t0, f.t1, m.rows());
            Drawables d = f.d;
            int checked = 0, backward = 0, upward = 0;
            for (int i = 0; i < d.n; i++) {
                if (f.topo[i] != Category.ARROW) {
                    continue;
                }
                int x0 = l.xOf(d.time0[i]), y0 = l.rowCenter(f.row0[i]);
                int x1 = l.xOf(d.time1[i]), y1 = l.rowCenter(f.row1[i]);
                double len = Math.hypot(x1 - x0, y1 - y0);
                if (len < 40) {
                    continue;
                }
                double ux = (x1 - x0) / len, uy = (y1 - y0) / len;
                double px = -uy, py = ux;
                int rgb = m.colour[f.slot[i]].getRGB() & 0xffffff;
                for (int side : new int[] {-1, 1}) {
                    int hx = (int) Math.round(x1 - ux * 9 + side * px * 2.5);
                    int hy = (int) Math.round(y1 - uy * 9 + side * py * 2.5);
                    assertEquals(rgb, img.getRGB(hx, hy) & 0xffffff, "head of arrow " + i + " at (" + hx + "," + hy + ")");
                    int tx = (int) Math.round(x0 + ux * 9 + side * px * 2.5);
                    int ty = (int) Math.round(y0 + uy * 9 + side * py * 2.5);
                    assertNotEquals(rgb, img.getRGB(tx, ty) & 0xffffff, "no head at the send end of arrow " + i);
                }
                checked++;
                if (d.time1[i] < d.time0[i]) {
                    backward++;
                }
                if (y1 < y0) {
                    upward++;
                }
            }
            assertTrue(checked >= 6, "arrows checked: " + checked);
            assertTrue(backward >= 2, "backward arrows checked: " + backward);
            assertTrue(upward >= 2, "upward arrows checked: " + upward);
        }
    }

    @Test
    void headGeometry() {
        int[] hx = new int[3], hy = new int[3];
        Renderer.arrowHead(100, 50, 0, 50, hx, hy); // pointing left
        assertEquals(0, hx[0]);
        assertEquals(50, hy[0]);
        assertEquals(Renderer.ARROW_LEN, hx[1]);
        assertEquals(Renderer.ARROW_LEN, hx[2]);
        assertEquals(Renderer.ARROW_W, Math.abs(hy[1] - hy[2]));
    }
}
