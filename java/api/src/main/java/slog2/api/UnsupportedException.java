package slog2.api;

/**
 * The request is valid but not supported by this implementation.
 *
 * <p>Thrown for the library's error kind {@code ErrorKind::Unsupported}; see
 * {@link Slog2Exception} for the whole family.
 */
public class UnsupportedException extends Slog2Exception {
    private static final long serialVersionUID = 1L;

    /**
     * An exception carrying the library's message.
     *
     * @param message the library's message
     */
    public UnsupportedException(String message) {
        super(message);
    }
}
