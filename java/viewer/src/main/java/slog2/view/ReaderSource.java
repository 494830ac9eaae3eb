package slog2.view;

import java.io.IOException;
import slog2.api.Category;
import slog2.api.Drawables;
import slog2.api.Overview;
import slog2.api.Slog2Reader;
import slog2.api.YMap;

/** {@link Source} over the JNI reader: every call goes straight to the library. */
public final class ReaderSource implements Source {
    private final Slog2Reader reader;
    private final String name;

    private ReaderSource(Slog2Reader reader, String name) {
        this.reader = reader;
        this.name = name;
    }

    /** Open a file; the exception carries the library's message. */
    public static ReaderSource open(String path) throws IOException {
        return new ReaderSource(Slog2Reader.open(path), path);
    }

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
    @Override public Overview overview(Overview.Spec spec) throws IOException { return reader.overview(spec); }
    @Override public void close() { reader.close(); }
}
