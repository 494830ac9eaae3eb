package slog2.api;

import java.io.IOException;

/**
 * An error reported by the slog2 library. The message is the library's own
 * (file, offset and cause where it has them). The class says what kind of
 * failure it is, one subclass per kind of the library's {@code ErrorKind}, so
 * callers can tell a closed handle from a damaged file from a bad argument
 * without reading the message:
 *
 * <ul>
 *   <li>{@link ClosedException}: the reader was closed;
 *   <li>{@link FormatException}: not a valid SLOG-2 file, or damaged bytes;
 *   <li>{@link Slog2IOException}: an operating-system I/O error;
 *   <li>{@link InvalidArgumentException}: an argument out of range;
 *   <li>{@link OrderException}, {@link ParseException},
 *       {@link InvalidDrawableException}, {@link SourceException},
 *       {@link NoDrawablesException}: problems of trace input;
 *   <li>{@link UnsupportedException}, {@link StateException}: a valid call the
 *       library does not support, or one not allowed at this point.
 * </ul>
 */
public class Slog2Exception extends IOException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception carrying the library's message.
     *
     * @param message the library's message
     */
    public Slog2Exception(String message) {
        super(message);
    }
}
