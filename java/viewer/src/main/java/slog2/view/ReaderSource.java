package slog2.view;

import java.io.IOException;
import slog2.api.Category;
import slog2.api.Drawables;
import slog2.api.Overview;
import slog2.api.Slog2Reader;
import slog2.api.WindowCursor;
import slog2.api.YMap;

/**
 * {@link Source} over the JNI reader: every call goes straight to the
 * library; {@link #move} goes through one {@link WindowCursor}, opened on
 * first use.
 */
public final class ReaderSource implements Source {
    private final Slog2Reader reader;
    private final String name;
    private WindowCursor cursor;

    private ReaderSource(Slog2Reader reader, String name) {
        this.reader = reader;
        this.name = name;
    }

    /** Open a file; the exception carries the library's message. */
    public static ReaderSource open(String path) throws IOException {
        return new ReaderSource(Slog2Reader.open(path), path);
    }

    /** The reader (for the statistics, {@link StatsPanel}). */
    public Slog2Reader reader() { return reader; }

    @Override public String name() { return name; }
    @Override public double[] totalTime() throws IOException { return reader.totalTime(); }
    @Override public int rootDepth() throws IOException { return reader.rootDepth(); }
    @Override public Category[] categories() throws IOException { return reader.categories(); }
    @Override public YMap[] yMaps() throws IOException { return reader.yMaps(); }
    @Override public Drawables window(double t0, double t1) throws IOException { return reader.window(t0, t1); }
    @Override public Drawables preview(double t0, double t1, int depth) throws IOException {
        return reader.preview(t0, t1, depth);
    }
    @Override public String popupText(Drawables d, int row) throws IOException { return reader.popupText(d, row); }
    @Override public slog2.api.Counts counts() throws IOException { return reader.counts(); }

    @Override
    public synchronized Drawables move(double t0, double t1) throws IOException {
        if (cursor == null) {
            cursor = reader.cursor();
        }
        return cursor.move(t0, t1);
    }

    @Override
    public synchronized void close() {
        if (cursor != null) {
            cursor.close();
        }
        reader.close();
    }
    @Override public Overview overview(Overview.Spec spec) throws IOException { return reader.overview(spec); }
}
