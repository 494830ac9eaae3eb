package slog2.view;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The legend counts what the file holds, by the library's definition: a
 * composite category shows its composites (the reference stores 0 for it),
 * a category used only by members shows its members.
 */
class LegendCountTest {
    @Test
    void legendCountsAreTheLibrarysCounts() throws Exception {
        try (Source s = ReaderSource.open(Fx.sample("data.slog2"))) {
            Model m = new Model(s);
            LegendPanel lp = WindowSmokeTest.edt(() -> new LegendPanel(m, () -> { }));
            int uc = m.slot(183), send = m.slot(81), barrier = m.slot(6);
            WindowSmokeTest.waitFor("the counts", () -> lp.countOf(uc) == 3);
            assertEquals(0, m.categories[uc].count, "stored: 0, as the reference writes it");
            assertEquals(2, WindowSmokeTest.edt(() -> lp.countOf(send)), "SEND: 2 members");
            assertEquals(5, WindowSmokeTest.edt(() -> lp.countOf(barrier)), "BARRIER: 1 drawable + 4 members");
        }
    }
}
