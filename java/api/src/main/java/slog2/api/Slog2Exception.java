package slog2.api;

import java.io.IOException;

/**
 * An error reported by the slog2 library: a missing or corrupt file, a bad
 * argument (an empty or NaN time window), or a call on a closed reader. The
 * message is the library's own (file, offset and cause where it has them).
 */
public class Slog2Exception extends IOException {
    private static final long serialVersionUID = 1L;

    /** An exception carrying the library's message. */
    public Slog2Exception(String message) {
        super(message);
    }
}
