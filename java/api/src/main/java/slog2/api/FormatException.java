package slog2.api;

/**
 * The file is not a valid SLOG-2 2.0.6 file, or its bytes are damaged; the
 * message gives the byte offset.
 *
 * <p>Thrown for the library's error kind {@code ErrorKind::Format}; see
 * {@link Slog2Exception} for the whole family.
 */
public class FormatException extends Slog2Exception {
    private static final long serialVersionUID = 1L;

    /**
     * An exception carrying the library's message.
     *
     * @param message the library's message
     */
    public FormatException(String message) {
        super(message);
    }
}
