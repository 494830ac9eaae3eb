package slog2.api;

/**
 * A text trace record could not be parsed; the message gives
 * {@code file:line:column}.
 *
 * <p>Thrown for the library's error kind {@code ErrorKind::Parse}; see
 * {@link Slog2Exception} for the whole family.
 */
public class ParseException extends Slog2Exception {
    private static final long serialVersionUID = 1L;

    /**
     * An exception carrying the library's message.
     *
     * @param message the library's message
     */
    public ParseException(String message) {
        super(message);
    }
}
