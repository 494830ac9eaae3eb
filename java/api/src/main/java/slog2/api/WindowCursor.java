package slog2.api;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A moving window over one file ({@link Slog2Reader#cursor()}): the library's
 * {@code WindowCursor}. Each {@link #move} returns the rows of
 * {@link Slog2Reader#window} for the new window, but the library keeps the
 * previous window's rows and decodes only the drawables that entered (a move
 * that does not overlap the previous window is a fresh query), so a viewer
 * panning along a file does not decode the same drawables again on every
 * frame. The returned {@link Drawables} are a copy: they stay valid after
 * later moves.
 *
 * <p>Calls on one cursor serialise; cursors and queries on one reader run
 * concurrently. Closing the reader ends its cursors (later moves throw).
 */
public final class WindowCursor implements AutoCloseable {
    private final long handle;
    private final AtomicBoolean closed = new AtomicBoolean();

    WindowCursor(long handle) {
        this.handle = handle;
    }

    /**
     * Move to {@code [t0, t1]} and return its rows, as {@link Slog2Reader#window}
     * (rows with equal drawing keys may come in another order);
     * {@link Drawables#bytesRead} is what this move decoded.
     *
     * @throws Slog2Exception if {@code t0 > t1}, a bound is NaN, the cursor or its
     *         reader is closed, or a node is damaged
     */
    public Drawables move(double t0, double t1) throws Slog2Exception {
        if (closed.get()) {
            throw new Slog2Exception("slog2: the cursor is closed");
        }
        return Native.cursorMove(handle, t0, t1);
    }

    /** Release the cursor (idempotent). */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            Native.cursorClose(handle);
        }
    }
}
