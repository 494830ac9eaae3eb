package slog2.api;

/**
 * An argument is out of range or inconsistent (an empty or NaN time window,
 * a negative depth).
 *
 * <p>Thrown for the library's error kind {@code ErrorKind::InvalidArgument}; see
 * {@link Slog2Exception} for the whole family.
 */
public class InvalidArgumentException extends Slog2Exception {
    private static final long serialVersionUID = 1L;

    /**
     * An exception carrying the library's message.
     *
     * @param message the library's message
     */
    public InvalidArgumentException(String message) {
        super(message);
    }
}
