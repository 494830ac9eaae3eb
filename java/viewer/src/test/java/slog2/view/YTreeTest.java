package slog2.view;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The y-axis as Jumpshot builds it: a tree per y-map (root, then one level
 * per column), lines with equal values merged into one row, collapsed nodes
 * drawing all their lines, expanded ones as empty headers, expand and
 * collapse by level or by node.
 */
class YTreeTest {
    @Test
    void processViewMergesTheLinesOfARank() throws Exception {
        try (Source s = ReaderSource.open(Fx.mpeTrace())) {
            Model m = new Model(s);
            assertEquals("ProcessView", m.yMaps[m.yMapIndex()].title, "the first map that is not the identity");
            YTree t = m.tree();
            assertEquals(5, t.rows(), "the root and 4 ranks");
            assertEquals("ProcessView", t.label(0));
            assertTrue(t.expanded(0));
            for (int r = 1; r <= 4; r++) {
                assertEquals("rank " + (r - 1), t.label(r));
                assertEquals(1, t.depth(r));
                assertFalse(t.expandable(r), "a rank is a leaf of a one-column map");
                assertArrayEquals(new int[] {2 * (r - 1), 2 * (r - 1) + 1}, t.linesOf(r), "two threads on one row");
            }
            // every drawable of a rank's two lines lands on the rank's row
            Frame f = Frame.load(m, m.tMin, m.tMin + (m.tMax - m.tMin) / 500);
            for (int i = 0; i < f.d.n; i++) {
                assertEquals(1 + f.d.line0[i] / 2, f.row0[i]);
            }
        }
    }

    @Test
    void threadViewOpensAndClosesLikeJumpshot() throws Exception {
        try (Source s = ReaderSource.open(Fx.mpeTrace())) {
            Model m = new Model(s);
            m.selectYMap(m.yMapNamed("ThreadView"));
            YTree t = m.tree();
            // Jumpshot's JTree at first: the root open, the ranks closed (each one row of both threads)
            assertEquals(5, t.rows());
            assertTrue(t.expandable(1));
            assertFalse(t.expanded(1));
            assertEquals(1, t.rowOf(0));
            assertEquals(1, t.rowOf(1));
            assertTrue(m.changeLevel(true), "expand one level");
            t = m.tree();
            assertEquals(13, t.rows(), "root, 4 rank headers, 8 threads");
            assertTrue(t.expanded(1), "an open rank is a header row");
            assertEquals("thread 0", t.label(2));
            assertEquals(2, t.depth(2));
            assertEquals(2, t.rowOf(0));
            assertEquals(3, t.rowOf(1));
            assertFalse(m.changeLevel(true), "nothing deeper to open");
            assertTrue(m.toggleRow(1), "close rank 0 alone");
            t = m.tree();
            assertEquals(11, t.rows());
            assertEquals(1, t.rowOf(0));
            assertEquals(1, t.rowOf(1));
            assertTrue(m.changeLevel(false));
            assertEquals(5, m.tree().rows(), "collapse: back to the ranks");
            assertFalse(m.changeLevel(false), "the root stays open");
            // a frame keeps the tree it was laid out on; relayout moves it to the current one
            Frame f = Frame.load(m, m.tMin, m.tMin + (m.tMax - m.tMin) / 500);
            m.changeLevel(true);
            assertEquals(5, f.tree.rows());
            Frame g = f.relayout(m);
            assertEquals(13, g.tree.rows());
            for (int i = 0; i < g.d.n; i++) {
                assertEquals(g.tree.rowOf(g.d.line0[i]), g.row0[i]);
            }
        }
    }

    @Test
    void identityMapsAndFlatRows() throws Exception {
        try (Source s = ReaderSource.open(Fx.sample("data.slog2"))) {
            Model m = new Model(s);
            m.selectYMap(m.yMapNamed("Identity Map"));
            YTree t = m.tree();
            assertEquals(6, t.rows(), "the root and one row per line");
            assertEquals("line 0", t.label(1));
            m.setRows(new int[] {7, 3}, new String[] {"a", "b"});
            assertEquals(3, m.rows());
            assertEquals(1, m.rowOf(7));
            assertEquals(2, m.rowOf(3));
            assertEquals(-1, m.rowOf(5));
        }
    }
}
