package slog2.api;

/**
 * A call on a closed or unknown handle: the {@link Slog2Reader} was closed
 * (or the handle never existed).
 *
 * <p>Thrown for the library's error kind {@code ErrorKind::Closed}; see
 * {@link Slog2Exception} for the whole family.
 */
public class ClosedException extends Slog2Exception {
    private static final long serialVersionUID = 1L;

    /**
     * An exception carrying the library's message.
     *
     * @param message the library's message
     */
    public ClosedException(String message) {
        super(message);
    }
}
