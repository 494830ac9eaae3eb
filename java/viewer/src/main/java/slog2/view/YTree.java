package slog2.view;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import slog2.api.YMap;

/**
 * The y-axis as Jumpshot-4 builds it from a y-map ({@code YaxisMaps}): a
 * tree whose root is the map and whose levels are the map's columns, so a
 * map (line &rarr; node, core) gives root &rarr; node &rarr; core, and every
 * line ID hangs at the node of its values. A map is many-to-one: all the
 * lines with the same values (the threads of one rank in a Process View)
 * share one tree leaf, hence one row.
 *
 * <p>The rows are the tree's visible nodes in depth-first order, as
 * Jumpshot's {@code JTree} shows them: the root row first, and under each
 * expanded node its children. A <b>collapsed</b> node is one row holding the
 * drawables of every line below it (Jumpshot's merged timeline); an
 * <b>expanded</b> node is a header row with nothing drawn on it. At first the
 * root is expanded and everything else collapsed (a {@code JTree}'s initial
 * state): one row per node of the first column. {@link #expandLevel()} and
 * {@link #collapseLevel()} do what Jumpshot's toolbar buttons of that name
 * do; {@link #toggle(int)} opens or closes one node.
 *
 * <p>Children are ordered by value (Jumpshot's {@code IntegerArrayComparator}
 * over the value paths). Lines the map does not list get leaves of their own
 * under the root, labelled with their line ID ({@link #addLines}).
 */
public final class YTree {
    /** One node: a value of one column under its parent. */
    static final class Node {
        final String label;
        final int depth;
        final int value;
        final List<Node> children = new ArrayList<>();
        final Map<Integer, Node> byValue = new HashMap<>();
        boolean expanded;

        Node(String label, int depth, int value) {
            this.label = label;
            this.depth = depth;
            this.value = value;
        }

        boolean leaf() {
            return children.isEmpty();
        }

        Node child(String label, int value) {
            Node c = byValue.get(value);
            if (c == null) {
                c = new Node(label, depth + 1, value);
                byValue.put(value, c);
                children.add(c);
            }
            return c;
        }

        void sort() {
            children.sort((a, b) -> Integer.compare(a.value, b.value));
            for (Node c : children) {
                c.sort();
            }
        }
    }

    private final Node root;
    private final Map<Integer, Node> leafOf = new HashMap<>();
    private final int levels;
    /** The visible rows, in order. */
    private Node[] rows = new Node[0];
    /** Line ID to row. */
    private final Map<Integer, Integer> rowOfLine = new HashMap<>();

    /** The tree of {@code m} (null: a tree of no lines). */
    public YTree(YMap m) {
        root = new Node(m == null ? "lines" : m.title, 0, 0);
        root.expanded = true;
        int cols = m == null ? 0 : m.columnLabels.length;
        boolean identity = m == null || cols == 0 || "Identity Map".equals(m.title);
        levels = identity ? 1 : cols;
        if (m != null) {
            for (int r = 0; r < m.rows(); r++) {
                Node n = root;
                if (identity) {
                    n = n.child("line " + m.lineIDs[r], m.lineIDs[r]);
                } else {
                    for (int c = 0; c < cols; c++) {
                        int v = m.value(r, c);
                        n = n.child(m.columnLabels[c] + " " + v, v);
                    }
                }
                leafOf.putIfAbsent(m.lineIDs[r], n);
            }
        }
        root.sort();
        layout();
    }

    /** A flat tree: one leaf row per line with the given labels (tests, files without maps). */
    public YTree(int[] lines, String[] labels) {
        root = new Node("lines", 0, 0);
        root.expanded = true;
        levels = 1;
        for (int i = 0; i < lines.length; i++) {
            Node n = new Node(labels[i], 1, i);
            root.children.add(n);
            leafOf.putIfAbsent(lines[i], n);
        }
        layout();
    }

    private YTree(Node root, int levels) {
        this.root = root;
        this.levels = levels;
    }

    /** A copy with its own expansion state. */
    public YTree copy() {
        Map<Node, Node> map = new HashMap<>();
        YTree t = new YTree(clone(root, map), levels);
        for (Map.Entry<Integer, Node> e : leafOf.entrySet()) {
            t.leafOf.put(e.getKey(), map.get(e.getValue()));
        }
        t.layout();
        return t;
    }

    private static Node clone(Node n, Map<Node, Node> map) {
        Node c = new Node(n.label, n.depth, n.value);
        c.expanded = n.expanded;
        map.put(n, c);
        for (Node k : n.children) {
            Node kc = clone(k, map);
            c.children.add(kc);
            c.byValue.put(kc.value, kc);
        }
        return c;
    }

    /** Give line IDs the map does not list a leaf each, under the root. */
    public void addLines(int[] lines) {
        int[] missing = Arrays.stream(lines).filter(l -> !leafOf.containsKey(l)).distinct().sorted().toArray();
        if (missing.length == 0) {
            return;
        }
        for (int l : missing) {
            Node n = new Node("line " + l, 1, Integer.MAX_VALUE);
            root.children.add(n);
            leafOf.put(l, n);
        }
        layout();
    }

    /** Recompute the rows after a change of expansion. */
    private void layout() {
        parents.clear();
        index(root);
        List<Node> out = new ArrayList<>();
        walk(root, out);
        rows = out.toArray(new Node[0]);
        Map<Node, Integer> rowOfNode = new HashMap<>();
        for (int r = 0; r < rows.length; r++) {
            rowOfNode.put(rows[r], r);
        }
        rowOfLine.clear();
        for (Map.Entry<Integer, Node> e : leafOf.entrySet()) {
            // the line's row: its deepest visible ancestor (itself when shown)
            Integer r = null;
            for (Node n = e.getValue(); r == null && n != null; n = parentOf(n)) {
                r = rowOfNode.get(n);
            }
            if (r != null) {
                rowOfLine.put(e.getKey(), r);
            }
        }
    }

    private final Map<Node, Node> parents = new HashMap<>();

    private Node parentOf(Node n) {
        return parents.get(n);
    }

    private void index(Node n) {
        for (Node c : n.children) {
            parents.put(c, n);
            index(c);
        }
    }

    private static void walk(Node n, List<Node> out) {
        out.add(n);
        if (n.expanded) {
            for (Node c : n.children) {
                walk(c, out);
            }
        }
    }

    public int rows() {
        return rows.length;
    }

    public String label(int r) {
        return rows[r].label;
    }

    /** Indentation level of row {@code r} (the root is 0). */
    public int depth(int r) {
        return rows[r].depth;
    }

    /** Row {@code r} has children (it can be expanded or collapsed). */
    public boolean expandable(int r) {
        return !rows[r].leaf();
    }

    /** Row {@code r} is an expanded node: a header with nothing drawn on it. */
    public boolean expanded(int r) {
        return rows[r].expanded && !rows[r].leaf();
    }

    /** Row of line {@code line}, or -1 when the tree has no such line. */
    public int rowOf(int line) {
        Integer r = rowOfLine.get(line);
        return r == null ? -1 : r;
    }

    /** Lines drawn on row {@code r} (a collapsed node merges all below it). */
    public int[] linesOf(int r) {
        return rowOfLine.entrySet().stream().filter(e -> e.getValue() == r).mapToInt(Map.Entry::getKey).sorted()
                .toArray();
    }

    /** Open or close row {@code r}'s node; false when it is a leaf. */
    public boolean toggle(int r) {
        if (r < 0 || r >= rows.length || rows[r].leaf()) {
            return false;
        }
        rows[r].expanded = !rows[r].expanded;
        layout();
        return true;
    }

    /** Expand every node of the shallowest level that has a collapsed one (Jumpshot's "expand"). */
    public boolean expandLevel() {
        for (int d = 0; d < levels; d++) {
            List<Node> at = new ArrayList<>();
            nodesAt(root, d, at);
            boolean any = false;
            for (Node n : at) {
                if (!n.expanded && !n.leaf()) {
                    n.expanded = true;
                    any = true;
                }
            }
            if (any) {
                layout();
                return true;
            }
        }
        return false;
    }

    /** Collapse every node of the deepest level that has an expanded one, the root excepted. */
    public boolean collapseLevel() {
        for (int d = levels - 1; d >= 1; d--) {
            List<Node> at = new ArrayList<>();
            nodesAt(root, d, at);
            boolean any = false;
            for (Node n : at) {
                if (n.expanded && !n.leaf()) {
                    n.expanded = false;
                    any = true;
                }
            }
            if (any) {
                layout();
                return true;
            }
        }
        return false;
    }

    /** Expand the top {@code n} levels below the root (0: Jumpshot's initial view; large: every line). */
    public void expandLevels(int n) {
        for (int k = 0; k < n && expandLevel(); k++) {
            // one level per step
        }
    }

    private static void nodesAt(Node n, int d, List<Node> out) {
        if (n.depth == d) {
            out.add(n);
            return;
        }
        for (Node c : n.children) {
            nodesAt(c, d, out);
        }
    }
}
