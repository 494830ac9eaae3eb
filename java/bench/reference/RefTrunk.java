import base.drawable.Drawable;
import base.drawable.TimeBoundingBox;
import logformat.slog2.input.InputLog;
import logformat.slog2.input.TreeNode;
import logformat.slog2.input.TreeTrunk;

/**
 * slog2sdk's viewer tree (TreeTrunk) opened exactly as Jumpshot-4 opens it,
 * shared by the reference harnesses (RefPlan, RefWindowBench) so that they
 * start from the same state: InputLog, isSLOG2, getCompatibleHeader,
 * initialize (as TimelineFrame/PerfTest); TreeTrunk in start-time order,
 * initFromTreeTop (TimelinePanel); growInTreeWindow(root, depth_root -
 * INIT_SLOG2_LEVEL_READ + 1, root box) (CanvasTimeline, with Jumpshot's
 * default INIT_SLOG2_LEVEL_READ = 4: the top four levels in memory). The
 * harnesses query the window itself, so Jumpshot's setNumOfViewsPerUpdate
 * (it reads three viewports per update) is not called.
 *
 * Compiled against the reference's jumpshot.jar, which is not part of this
 * repository (see scripts/bench-window.sh).
 */
final class RefTrunk {
    /** Jumpshot's default Parameters.INIT_SLOG2_LEVEL_READ. */
    static final int INIT_LEVELS_READ = 4;

    final InputLog in;
    final TreeTrunk trunk;
    final TimeBoundingBox root;
    final short depthRoot;
    final short depthInit;

    RefTrunk(String path) {
        in = new InputLog(path);
        if (!in.isSLOG2()) {
            throw new IllegalArgumentException(path + " is not an SLOG-2 file");
        }
        String err = in.getCompatibleHeader();
        if (err != null) {
            throw new IllegalArgumentException(err);
        }
        in.initialize();
        trunk = new TreeTrunk(in, Drawable.INCRE_STARTTIME_ORDER);
        trunk.initFromTreeTop();
        TreeNode rootNode = trunk.getTreeRoot();
        depthRoot = rootNode.getTreeNodeID().depth;
        depthInit = (short) Math.max(0, depthRoot - INIT_LEVELS_READ + 1);
        root = new TimeBoundingBox(rootNode);
        trunk.growInTreeWindow(rootNode, depthInit, root);
    }

    /** A window; the (start, end) constructor is private in the jar's TimeBoundingBox. */
    static TimeBoundingBox box(double a, double b) {
        TimeBoundingBox w = new TimeBoundingBox();
        w.setEarliestTime(a);
        w.setLatestTime(b);
        return w;
    }

    void close() {
        in.close();
    }
}
