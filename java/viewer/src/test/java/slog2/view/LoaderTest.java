package slog2.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.swing.SwingUtilities;
import org.junit.jupiter.api.Test;

/** Queries run off the EDT; only the newest request's answer is delivered. */
class LoaderTest {
    @Test
    void staleAnswersAreDropped() throws Exception {
        Loader l = new Loader();
        CountDownLatch gate = new CountDownLatch(1), done = new CountDownLatch(1), started = new CountDownLatch(1);
        List<Integer> delivered = new CopyOnWriteArrayList<>();
        List<Boolean> onEdt = new CopyOnWriteArrayList<>();
        for (int k = 0; k < 5; k++) {
            final int id = k;
            l.submit(() -> {
                onEdt.add(SwingUtilities.isEventDispatchThread());
                if (id == 0) {
                    started.countDown();
                    gate.await(); // the first query is slow; requests 1..4 arrive meanwhile
                }
                return null;
            }, f -> {
                delivered.add(id);
                done.countDown();
            }, e -> { });
            if (k == 0) {
                assertTrue(started.await(10, TimeUnit.SECONDS));
            }
        }
        gate.countDown();
        assertTrue(done.await(10, TimeUnit.SECONDS));
        Thread.sleep(200);
        SwingUtilities.invokeAndWait(() -> { });
        assertEquals(List.of(4), delivered, "only the newest answer is painted (0 ran but was dropped)");
        assertEquals(2, onEdt.size(), "requests 1..3 were skipped without running");
        assertTrue(onEdt.stream().noneMatch(b -> b), "queries ran off the event thread");
        assertEquals(4, l.dropped());
        l.shutdown();
    }

    @Test
    void depthFollowsJumpshot() throws Exception {
        try (Source s = ReaderSource.open(Fx.bigTrace())) {
            Model m = new Model(s);
            double full = m.tMax - m.tMin;
            assertEquals(Math.max(0, m.rootDepth - Model.INIT_LEVELS_READ + 1), m.depthFor(full));
            assertEquals(Math.max(0, m.rootDepth - Model.INIT_LEVELS_READ), m.depthFor(full / 2));
            assertEquals(Math.max(0, m.rootDepth - Model.INIT_LEVELS_READ - 1), m.depthFor(full / 4));
            assertEquals(0, m.depthFor(full / 1e9));
        }
    }
}
