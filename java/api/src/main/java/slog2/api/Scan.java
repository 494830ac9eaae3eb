package slog2.api;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Every drawable of a file (or of a time range) once, in batches of columns
 * ({@link Slog2Reader#scan(int)}): the library's whole-file scan, which
 * visits each tree node once in file order and decodes each record once, so
 * a tool reads a file of any size with the memory of one batch. Each batch is
 * a {@link Drawables} (one row per drawable and one per composite member; a
 * composite is never split across batches). Batches are in the file's node
 * order, not sorted by time.
 *
 * <pre>{@code
 * try (Slog2Reader r = Slog2Reader.open(path); Scan s = r.scan(1 << 16)) {
 *     for (Drawables d : s) {
 *         for (int i = 0; i < d.n; i++) total += d.end[i] - d.start[i];
 *     }
 * }
 * }</pre>
 *
 * <p>Single use: {@link #iterator()} returns this scan. Not for several
 * threads at once. Closing the reader ends its scans (the next batch throws).
 * A library error during iteration is thrown as an unchecked
 * {@link IllegalStateException} whose cause is the {@link Slog2Exception};
 * {@link #next(boolean)} throws the checked one.
 */
public final class Scan implements Iterator<Drawables>, Iterable<Drawables>, AutoCloseable {
    private final long handle;
    private final int batchRows;
    private final AtomicBoolean closed = new AtomicBoolean();
    private Drawables ahead;
    private boolean done;

    Scan(long handle, int batchRows) throws Slog2Exception {
        this.handle = handle;
        if (batchRows < 1) {
            close();
            throw new Slog2Exception("slog2: batch rows must be >= 1, not " + batchRows);
        }
        this.batchRows = batchRows;
    }

    /**
     * The next batch, or {@code null} at the end (the checked form of
     * {@link #next()}; the argument only selects this overload).
     */
    public Drawables next(boolean checked) throws Slog2Exception {
        if (ahead != null) {
            Drawables d = ahead;
            ahead = null;
            return d;
        }
        if (done || closed.get()) {
            return null;
        }
        Drawables d = Native.scanNext(handle, batchRows);
        if (d == null) {
            done = true;
            close();
        }
        return d;
    }

    @Override
    public boolean hasNext() {
        if (ahead == null) {
            try {
                ahead = next(true);
            } catch (Slog2Exception e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }
        return ahead != null;
    }

    @Override
    public Drawables next() {
        if (!hasNext()) {
            throw new NoSuchElementException("the scan has returned every drawable");
        }
        Drawables d = ahead;
        ahead = null;
        return d;
    }

    @Override
    public Iterator<Drawables> iterator() {
        return this;
    }

    /** Release the scan (idempotent; also done at the end). */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            Native.scanClose(handle);
        }
    }
}
