package slog2.api;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A read-only SLOG-2 file, opened by the slog2 Rust library through JNI
 * ({@code libslog2jni.so}, found on {@code java.library.path} or named by the
 * system property {@code slog2.library}).
 *
 * <pre>{@code
 * try (Slog2Reader r = Slog2Reader.open("trace.slog2")) {
 *     double[] tt = r.totalTime();
 *     Drawables d = r.window(tt[0], tt[1]);
 *     for (int i = 0; i < d.n; i++)
 *         System.out.println(r.categories()[0].name + " " + d.start[i]);
 * }
 * }</pre>
 *
 * <p><b>Thread safety.</b> Every method is thread-safe: any number of threads
 * may query one reader at once (the file is memory-mapped; each query decodes
 * into its own result). {@link #close()} may race with queries:
 * queries already running finish normally, later calls throw
 * {@link Slog2Exception}. Results ({@link Drawables}, {@link Category},
 * {@link YMap}) are immutable and may be shared.
 *
 * <p><b>Internal errors.</b> A panic inside the library (a bug) is thrown as
 * {@link Error}, and the reader's handle is retired with it: the library's
 * object may be half-updated, so every later call on this reader throws
 * {@link ClosedException} saying "retired". Other readers, even of the same
 * file, are not affected.
 *
 * <p><b>A file that changes while open.</b> Nothing stops another process from
 * truncating or rewriting a file a reader has mapped (a {@code cp} over it). A
 * query that runs into such a change throws {@link Slog2Exception} ("… changed
 * while it was open …: reopen it") instead of crashing the JVM; the reader
 * keeps throwing it. The library catches the fault with a SIGBUS handler that
 * chains to the JVM's for every other fault; under {@code -Xcheck:jni} the JVM
 * prints once "Warning: SIGBUS handler modified!" (it checks its handlers
 * periodically), which preloading the JDK's {@code libjsig.so} avoids.
 *
 * <p>Each query is one native call returning column arrays, so a viewer's
 * cost per jump is the tree lookup plus one array copy per column. A viewer
 * that pans uses a {@link WindowCursor} ({@link #cursor()}); a tool that
 * wants every drawable reads a {@link Scan} ({@link #scan(int)}) in batches.
 *
 * <p><b>Counts.</b> Every table here ({@link Drawables} of a window, a
 * preview, a cursor move or a scan batch) has one row per drawable and one
 * per composite member, a member's row right after its composite's with
 * {@code parent} = that row; {@link #counts()} gives the file's numbers by
 * the library's one definition ({@link Counts#definition()}).
 */
public final class Slog2Reader implements AutoCloseable {
    private final long handle;
    private final String path;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Category[] categories;
    private volatile YMap[] yMaps;

    private Slog2Reader(long handle, String path) {
        this.handle = handle;
        this.path = path;
    }

    /**
     * Open an SLOG-2 file.
     *
     * @throws Slog2Exception if the file is missing, unreadable or not a valid SLOG-2 2.0.6 file
     */
    public static Slog2Reader open(String path) throws Slog2Exception {
        if (path == null) {
            throw new NullPointerException("path");
        }
        return new Slog2Reader(Native.open(path), path);
    }

    /** The native handle (for the natives of other classes of this package, e.g. {@link Stats}). */
    long handle() {
        return handle;
    }

    /** The path this reader was opened with. */
    public String path() {
        return path;
    }

    /** The time span of the whole file: {@code {start, end}}. */
    public double[] totalTime() throws Slog2Exception {
        return Native.totalTime(handle);
    }

    /** Depth of the tree's root (leaves have depth 0); previews take depths up to this. */
    public int rootDepth() throws Slog2Exception {
        return Native.rootDepth(handle);
    }

    /**
     * True when the file's tree nodes are compressed (version {@code SLOG 2.0.Z},
     * written by {@code slog2 convert --compress}); the reference tools read
     * only plain 2.0.6 files.
     */
    public boolean isCompressed() throws Slog2Exception {
        return Native.compressed(handle);
    }

    /** The file's categories in file order, the preview categories (-1 event, -2 arrow, -3 state) included. Shared: do not modify. */
    public Category[] categories() throws Slog2Exception {
        Category[] c = categories;
        if (c == null) {
            c = Native.categories(handle);
            categories = c;
        }
        return c;
    }

    /** The file's y-coordinate maps (the writer's identity map included). Shared: do not modify. */
    public YMap[] yMaps() throws Slog2Exception {
        YMap[] m = yMaps;
        if (m == null) {
            m = Native.yMaps(handle);
            yMaps = m;
        }
        return m;
    }

    /**
     * Every drawable whose time box meets {@code [t0, t1]}, at full detail, in
     * drawing order.
     *
     * @throws Slog2Exception if {@code t0 > t1}, a bound is NaN, the reader is closed or the file is corrupt
     */
    public Drawables window(double t0, double t1) throws Slog2Exception {
        return Native.window(handle, t0, t1);
    }

    /**
     * A Jumpshot-style preview of {@code [t0, t1]}: the real drawables of the
     * tree levels at or above {@code depth}, plus the shadows summarising the
     * levels below. {@code depth <= 0} is full detail (same as {@link #window}).
     */
    public Drawables preview(double t0, double t1, int depth) throws Slog2Exception {
        return Native.preview(handle, t0, t1, depth);
    }

    /**
     * The pop-up text of row {@code row} of {@code d} (its category's label
     * filled with the row's info bytes), exactly as {@code slog2 print} shows it.
     */
    public String popupText(Drawables d, int row) throws Slog2Exception {
        if (row < 0 || row >= d.n) {
            throw new IndexOutOfBoundsException("row " + row + " of " + d.n);
        }
        int off = d.infoOffset[row];
        return Native.popupText(handle, d.category[row], d.info, off, d.infoOffset[row + 1] - off);
    }

    /**
     * A moving window over this file: {@link WindowCursor#move} returns the
     * rows of {@link #window} but decodes only the drawables that entered
     * since the previous move. One per viewer; close it when done (closing
     * the reader ends it too).
     */
    public WindowCursor cursor() throws Slog2Exception {
        return new WindowCursor(Native.cursorOpen(handle));
    }

    /**
     * Every drawable of the file exactly once, in batches of at most
     * {@code batchRows} rows (a composite with its members is never split; a
     * larger one comes alone): the library's whole-file scan, which reads
     * each tree node once, in file order. Batches are not sorted by time.
     * Memory holds one batch; close the scan when done (closing the reader
     * ends it too).
     *
     * @throws Slog2Exception if {@code batchRows < 1} or the reader is closed
     */
    public Scan scan(int batchRows) throws Slog2Exception {
        return new Scan(Native.scanOpen(handle, false, 0, 0), batchRows);
    }

    /**
     * The drawables whose end time lies in {@code [t0, t1]}, each once, in
     * batches as {@link #scan(int)}: only the tree nodes that meet the range
     * are read, so consecutive ranges give each drawable once.
     *
     * @throws Slog2Exception if a bound is NaN, {@code t0 > t1}, {@code batchRows < 1}
     *         or the reader is closed
     */
    public Scan scan(int batchRows, double t0, double t1) throws Slog2Exception {
        return new Scan(Native.scanOpen(handle, true, t0, t1), batchRows);
    }

    /**
     * The file's counts by the library's one definition (drawables,
     * composites, members, primitives, rows; per category the drawables and
     * members counted beside the stored count). The library scans the file
     * once on the first call and keeps the result.
     */
    public Counts counts() throws Slog2Exception {
        return new Counts(Native.counts(handle));
    }

    /**
     * Ocelotl's aggregated overview of a time range of this file (see
     * {@link Overview}); close it when done.
     *
     * @throws Slog2Exception on a bad spec (range, slices, p, an unknown hierarchy), a closed reader or a damaged file
     */
    public Overview overview(Overview.Spec spec) throws Slog2Exception {
        return Overview.open(handle, spec);
    }

    /** Release the file. Idempotent; later calls on this reader throw {@link Slog2Exception}. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            Native.close(handle);
        }
    }
}
