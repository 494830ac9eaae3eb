package slog2.api;

/**
 * The input held no drawable, so nothing was written.
 *
 * <p>Thrown for the library's error kind {@code ErrorKind::NoDrawables}; see
 * {@link Slog2Exception} for the whole family.
 */
public class NoDrawablesException extends Slog2Exception {
    private static final long serialVersionUID = 1L;

    /**
     * An exception carrying the library's message.
     *
     * @param message the library's message
     */
    public NoDrawablesException(String message) {
        super(message);
    }
}
