package slog2.api;

/**
 * Drawables came out of non-decreasing end-time order.
 *
 * <p>Thrown for the library's error kind {@code ErrorKind::Order}; see
 * {@link Slog2Exception} for the whole family.
 */
public class OrderException extends Slog2Exception {
    private static final long serialVersionUID = 1L;

    /**
     * An exception carrying the library's message.
     *
     * @param message the library's message
     */
    public OrderException(String message) {
        super(message);
    }
}
