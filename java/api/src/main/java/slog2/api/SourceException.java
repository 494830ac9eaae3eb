package slog2.api;

/**
 * A trace source (a C TRACE-API library, a plugin) reported an error.
 *
 * <p>Thrown for the library's error kind {@code ErrorKind::Source}; see
 * {@link Slog2Exception} for the whole family.
 */
public class SourceException extends Slog2Exception {
    private static final long serialVersionUID = 1L;

    /**
     * An exception carrying the library's message.
     *
     * @param message the library's message
     */
    public SourceException(String message) {
        super(message);
    }
}
