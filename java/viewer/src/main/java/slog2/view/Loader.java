package slog2.view;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import javax.swing.SwingUtilities;

/**
 * Runs window queries off the event thread. Each request gets a generation
 * number; a request that is no longer the newest when its turn comes is
 * skipped, and an answer that is no longer the newest when it arrives is
 * dropped, so fast scrolling never queues up work or paints old frames.
 */
public final class Loader {
    public interface Job {
        Frame run() throws Exception;
    }

    private final ExecutorService pool = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "slog2view-query");
        t.setDaemon(true);
        return t;
    });
    private final AtomicLong generation = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();

    /** Queue {@code job}; {@code done} or {@code failed} runs on the EDT if it is still the newest. */
    public void submit(Job job, Consumer<Frame> done, Consumer<Exception> failed) {
        long g = generation.incrementAndGet();
        pool.execute(() -> {
            if (generation.get() != g) {
                dropped.incrementAndGet();
                return;
            }
            Frame f;
            try {
                f = job.run();
            } catch (Exception e) {
                SwingUtilities.invokeLater(() -> {
                    if (generation.get() == g) {
                        failed.accept(e);
                    }
                });
                return;
            }
            SwingUtilities.invokeLater(() -> {
                if (generation.get() == g) {
                    done.accept(f);
                } else {
                    dropped.incrementAndGet();
                }
            });
        });
    }

    /** Requests skipped or answers dropped because a newer one came. */
    public long dropped() {
        return dropped.get();
    }

    public void shutdown() {
        pool.shutdownNow();
    }
}
