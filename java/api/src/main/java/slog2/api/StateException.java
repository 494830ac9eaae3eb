package slog2.api;

/**
 * The call is not allowed in the object's current state (e.g. a sequential
 * protocol's calls out of order).
 *
 * <p>Thrown for the library's error kind {@code ErrorKind::State}; see
 * {@link Slog2Exception} for the whole family.
 */
public class StateException extends Slog2Exception {
    private static final long serialVersionUID = 1L;

    /**
     * An exception carrying the library's message.
     *
     * @param message the library's message
     */
    public StateException(String message) {
        super(message);
    }
}
