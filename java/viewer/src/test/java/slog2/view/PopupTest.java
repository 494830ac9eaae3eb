package slog2.view;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import slog2.api.Drawables;

/**
 * The info part of each drawable's popup equals what {@code slog2 print}
 * shows for the drawable with the same category and time box, and the
 * popup the window shows contains it with the drawable's times and lines.
 */
class PopupTest {
    static final Pattern BOX = Pattern.compile(
            "infobox\\[ TimeBBox\\(([^,]+),([^)]+)\\) Category=Category\\[ index=(-?\\d+),.*? count=\\d+ \\]: (.*?)\\] ");

    @ParameterizedTest
    @ValueSource(strings = {"data.slog2", "arrow.slog2", "barrier.slog2"})
    void popupEqualsPrint(String name) throws Exception {
        String file = Fx.sample(name);
        String print = Fx.run(List.of(Fx.cli(), "print", file), 0);
        Map<String, List<String>> infos = new HashMap<>();
        Matcher mt = BOX.matcher(print);
        while (mt.find()) {
            String key = mt.group(3) + "|" + Double.parseDouble(mt.group(1)) + "|" + Double.parseDouble(mt.group(2));
            infos.computeIfAbsent(key, k -> new ArrayList<>()).add(mt.group(4));
        }
        assertTrue(infos.size() > 0, "parsed slog2 print");
        try (Source s = ReaderSource.open(file)) {
            Model m = new Model(s);
            Frame f = Frame.load(m, m.tMin, m.tMax, 0);
            Drawables d = f.d;
            int withInfo = 0;
            for (int i = 0; i < d.n; i++) {
                String key = d.category[i] + "|" + d.start[i] + "|" + d.end[i];
                List<String> want = infos.get(key);
                assertNotNull(want, "slog2 print lists " + key);
                String got = s.popupText(d, i);
                assertTrue(want.contains(got), key + ": popup '" + got + "' not in " + want);
                String shown = Popup.describe(m, f, i);
                assertTrue(shown.contains(got), shown);
                assertTrue(shown.contains("start=" + d.start[i] + ", end=" + d.end[i]), shown);
                assertTrue(shown.contains("lineID=" + d.line1[i]), shown);
                if (!got.isEmpty()) {
                    withInfo++;
                }
            }
            assertTrue(d.n > 0);
            if (!name.startsWith("barrier")) {
                assertTrue(withInfo > 0, "some drawables have info");
            }
        }
    }
}
