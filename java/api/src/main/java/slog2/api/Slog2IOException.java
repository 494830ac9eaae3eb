package slog2.api;

/**
 * An operating-system I/O error (a missing or unreadable file); the message
 * names the file.
 *
 * <p>Thrown for the library's error kind {@code ErrorKind::Io}; see
 * {@link Slog2Exception} for the whole family.
 */
public class Slog2IOException extends Slog2Exception {
    private static final long serialVersionUID = 1L;

    /**
     * An exception carrying the library's message.
     *
     * @param message the library's message
     */
    public Slog2IOException(String message) {
        super(message);
    }
}
