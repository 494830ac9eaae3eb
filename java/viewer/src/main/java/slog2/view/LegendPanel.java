package slog2.view;

import java.awt.BorderLayout;
import java.awt.Color;
import java.awt.Component;
import java.awt.Graphics;
import javax.swing.Icon;
import javax.swing.JPanel;
import javax.swing.JScrollPane;
import javax.swing.JTable;
import javax.swing.ListSelectionModel;
import javax.swing.table.AbstractTableModel;
import slog2.api.Category;

/**
 * Jumpshot's legend: one line per category with its colour, name, topology,
 * visibility and search toggles, count and inclusive/exclusive ratios over
 * the whole file. Toggling visibility repaints the timeline.
 *
 * <p>The count is the library's counted number ({@code Slog2Reader.counts()}:
 * the category's drawables, composites included, plus its composite
 * members), the same as {@code slog2 info}'s drawables + members; it is
 * counted by a whole-file scan off the event thread, and until it arrives the
 * column shows the category block's stored count (which the reference
 * writes as 0 for composite categories).
 */
public final class LegendPanel extends JPanel {
    private static final long serialVersionUID = 1L;
    private final JTable table;

    static final class Swatch implements Icon {
        final Color c;
        final int topo;

        Swatch(Color c, int topo) {
            this.c = c;
            this.topo = topo;
        }

        @Override
        public void paintIcon(Component comp, Graphics g, int x, int y) {
            g.setColor(c);
            if (topo == Category.STATE) {
                g.fillRect(x, y + 2, 22, 10);
            } else if (topo == Category.ARROW) {
                g.fillRect(x, y + 6, 16, 2);
                g.fillPolygon(new int[] {x + 14, x + 22, x + 14}, new int[] {y + 3, y + 7, y + 11}, 3);
            } else {
                g.fillRect(x + 10, y + 4, 2, 10);
                g.fillPolygon(new int[] {x + 6, x + 16, x + 11}, new int[] {y + 1, y + 1, y + 6}, 3);
            }
        }

        @Override public int getIconWidth() { return 24; }
        @Override public int getIconHeight() { return 14; }
    }

    public LegendPanel(Model m, Runnable changed) {
        super(new BorderLayout());
        String[] cols = {"", "Name", "Topo", "V", "S", "Count", "Incl", "Excl"};
        AbstractTableModel tm = new AbstractTableModel() {
            private static final long serialVersionUID = 1L;

            @Override public int getRowCount() { return m.categories.length; }
            @Override public int getColumnCount() { return cols.length; }
            @Override public String getColumnName(int c) { return cols[c]; }

            @Override
            public Class<?> getColumnClass(int c) {
                return switch (c) {
                    case 0 -> Icon.class;
                    case 3, 4 -> Boolean.class;
                    case 5 -> Long.class;
                    case 6, 7 -> Float.class;
                    default -> String.class;
                };
            }

            @Override
            public Object getValueAt(int r, int c) {
                Category k = m.categories[r];
                return switch (c) {
                    case 0 -> new Swatch(m.colour[r], k.topology);
                    case 1 -> k.name;
                    case 2 -> Popup.topoName(k.topology);
                    case 3 -> m.visible[r];
                    case 4 -> m.searchable[r];
                    case 5 -> counted != null && counted[r] >= 0 ? counted[r] : k.count;
                    case 6 -> k.inclRatio;
                    default -> k.exclRatio;
                };
            }

            @Override public boolean isCellEditable(int r, int c) { return c == 3 || c == 4; }

            @Override
            public void setValueAt(Object v, int r, int c) {
                if (c == 3) {
                    m.visible[r] = (Boolean) v;
                } else if (c == 4) {
                    m.searchable[r] = (Boolean) v;
                }
                fireTableCellUpdated(r, c);
                changed.run();
            }
        };
        table = new JTable(tm);
        table.setAutoCreateRowSorter(true);
        table.setSelectionMode(ListSelectionModel.SINGLE_SELECTION);
        table.setRowHeight(18);
        int[] widths = {30, 140, 45, 24, 24, 70, 60, 60};
        for (int c = 0; c < widths.length; c++) {
            table.getColumnModel().getColumn(c).setPreferredWidth(widths[c]);
        }
        table.getTableHeader().setToolTipText("Count: drawables (composites included) and composite members of "
                + "the category, counted in the file");
        add(new JScrollPane(table), BorderLayout.CENTER);
        new javax.swing.SwingWorker<long[], Void>() {
            @Override
            protected long[] doInBackground() throws Exception {
                slog2.api.Counts c = m.source.counts();
                if (c == null) {
                    return null;
                }
                long[] out = new long[m.categories.length];
                for (int k = 0; k < out.length; k++) {
                    int at = c.indexOf(m.categories[k].index);
                    out[k] = at < 0 ? -1 : c.categoryDrawables[at] + c.categoryMembers[at];
                }
                return out;
            }

            @Override
            protected void done() {
                try {
                    counted = get();
                    tm.fireTableDataChanged();
                } catch (Exception e) {
                    // the stored counts stay; the timeline reports a damaged file on its own
                }
            }
        }.execute();
    }

    /** Counted drawables + members per category slot (null until counted). */
    private volatile long[] counted;

    /** The count column's value for category slot {@code slot} (tests). */
    long countOf(int slot) {
        return (Long) table.getModel().getValueAt(slot, 5);
    }

    /** Slot of the selected category, or -1. */
    public int selectedSlot() {
        int r = table.getSelectedRow();
        return r < 0 ? -1 : table.convertRowIndexToModel(r);
    }

    public void select(int slot) {
        int v = table.convertRowIndexToView(slot);
        table.getSelectionModel().setSelectionInterval(v, v);
    }

    JTable table() {
        return table;
    }
}
