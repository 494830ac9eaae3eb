package slog2.view;

import java.io.IOException;
import slog2.api.Category;
import slog2.api.Drawables;
import slog2.api.Overview;
import slog2.api.YMap;

/**
 * What the viewer needs from a trace: the {@code slog2.api.Slog2Reader}
 * calls, behind an interface so that unit tests can feed made-up data
 * ({@link ReaderSource} is the real one). Every method may be called from
 * any thread.
 */
public interface Source extends AutoCloseable {
    String name();

    double[] totalTime() throws IOException;

    int rootDepth() throws IOException;

    Category[] categories() throws IOException;

    YMap[] yMaps() throws IOException;

    Drawables window(double t0, double t1) throws IOException;

    Drawables preview(double t0, double t1, int depth) throws IOException;

    /**
     * The rows of {@link #window} through the source's window cursor (one per
     * source: calls come from the viewer's one query thread); a source
     * without one answers with a fresh window.
     */
    default Drawables move(double t0, double t1) throws IOException {
        return window(t0, t1);
    }

    String popupText(Drawables d, int row) throws IOException;

    /** The file's counts ({@code Slog2Reader.counts()}), or null when the source has none. */
    default slog2.api.Counts counts() throws IOException {
        return null;
    }

    /** Ocelotl's overview of a range (the overview strip); sources without one throw. */
    default Overview overview(Overview.Spec spec) throws IOException {
        throw new IOException(name() + ": no overview for this source");
    }

    @Override
    void close();
}
