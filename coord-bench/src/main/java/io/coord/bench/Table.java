package io.coord.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The stdout table: one row per figure, ours beside the peer. */
final class Table {
    static final List<String> HEADER = List.of("bench", "metric", "unit", "ours", "peer", "peer is", "ours/peer", "better");

    private Table() {
    }

    static List<String> render(List<Figure> figures) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(HEADER);
        for (Figure f : figures) {
            rows.add(List.of(f.bench(), f.metric(), f.unit(), number(f.ours()),
                    f.peer() == null ? "-" : number(f.peer()),
                    f.peerName() == null ? "-" : f.peerName(),
                    f.ratio() == null ? "-" : String.format(Locale.ROOT, "%.2f", f.ratio()),
                    f.better().json()));
        }
        int[] width = new int[HEADER.size()];
        for (List<String> row : rows) {
            for (int i = 0; i < row.size(); i++) {
                width[i] = Math.max(width[i], row.get(i).length());
            }
        }
        List<String> lines = new ArrayList<>();
        for (List<String> row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.size(); i++) {
                String cell = row.get(i);
                boolean numeric = i == 3 || i == 4 || i == 6;
                String pad = " ".repeat(width[i] - cell.length());
                line.append(numeric ? pad + cell : cell + pad);
                if (i < row.size() - 1) {
                    line.append("  ");
                }
            }
            lines.add(line.toString().stripTrailing());
        }
        return lines;
    }

    /** Enough digits to compare, no more: 12345, 123.4, 12.34, 0.123. */
    static String number(double v) {
        if (v >= 1000) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (v >= 100) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        if (v >= 1) {
            return String.format(Locale.ROOT, "%.2f", v);
        }
        return String.format(Locale.ROOT, "%.3f", v);
    }
}
