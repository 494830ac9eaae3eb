package slog2.api;

/**
 * A drawable breaks a rule of the format (time box, vertices, category, info
 * payload).
 *
 * <p>Thrown for the library's error kind {@code ErrorKind::InvalidDrawable}; see
 * {@link Slog2Exception} for the whole family.
 */
public class InvalidDrawableException extends Slog2Exception {
    private static final long serialVersionUID = 1L;

    /**
     * An exception carrying the library's message.
     *
     * @param message the library's message
     */
    public InvalidDrawableException(String message) {
        super(message);
    }
}
