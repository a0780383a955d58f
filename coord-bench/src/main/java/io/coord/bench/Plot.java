package io.coord.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * A small SVG line plot of values against a size on a log axis (depth, waiters, members), written
 * by the benchmarks that measure a curve: {@code queue.depth} and {@code ./coord bench --scale}.
 * Plain SVG, no script, so GitHub and a browser render it from the Markdown link alike.
 */
final class Plot {
    private static final int W = 820;
    private static final int H = 360;
    private static final int LEFT = 70;
    /** Room for the legend, right of the plot. */
    private static final int RIGHT = 260;
    private static final int BOTTOM = 44;
    private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};

    /** One line: its legend name, whether it is drawn dashed (the peer), and its points (x = size, y). */
    record Series(String name, boolean dashed, List<double[]> points) {
        Series {
            points = List.copyOf(points);
        }
    }

    private Plot() {
    }

    /**
     * The SVG text. Series are coloured in pairs when {@code pairColors} (ours solid, the peer
     * dashed, same colour), else one colour each. Sizes must be above 0 (log axis). A title with
     * line breaks is drawn as several lines.
     */
    static String svg(String title, String xLabel, String yUnit, List<Series> series, boolean pairColors) {
        String[] titleLines = title.split("\n");
        int top = 20 + 16 * titleLines.length;
        double maxY = series.stream().flatMap(s -> s.points().stream()).mapToDouble(p -> p[1]).max().orElse(1);
        maxY = maxY <= 0 ? 1 : maxY * 1.1;
        double minX = series.stream().flatMap(s -> s.points().stream()).mapToDouble(p -> p[0]).min().orElse(1);
        double maxX = series.stream().flatMap(s -> s.points().stream()).mapToDouble(p -> p[0]).max().orElse(10);
        double minLog = Math.log10(minX);
        double maxLog = Math.max(minLog + 1, Math.log10(maxX));
        int plotW = W - LEFT - RIGHT;
        int plotH = H - top - BOTTOM;
        StringBuilder svg = new StringBuilder();
        svg.append(f("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">%n", W, H));
        svg.append(f("<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", W, H));
        for (int i = 0; i < titleLines.length; i++) {
            svg.append(f("<text x=\"%d\" y=\"%d\">%s</text>%n", LEFT, 18 + 16 * i, escape(titleLines[i])));
        }
        svg.append(f("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n", LEFT, H - BOTTOM, LEFT + plotW, H - BOTTOM));
        svg.append(f("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n", LEFT, top, LEFT, H - BOTTOM));
        svg.append(f("<text x=\"4\" y=\"%d\">%s %s</text>%n", top + 4, Table.number(maxY), escape(yUnit)));
        svg.append(f("<text x=\"4\" y=\"%d\">0</text>%n", H - BOTTOM));
        java.util.Set<Double> ticks = new java.util.TreeSet<>();
        for (int s = 0; s < series.size(); s++) {
            Series line = series.get(s);
            String color = COLORS[(pairColors ? s / 2 : s) % COLORS.length];
            StringBuilder points = new StringBuilder();
            for (double[] p : line.points()) {
                double x = LEFT + (Math.log10(p[0]) - minLog) / (maxLog - minLog) * plotW;
                double y = (H - BOTTOM) - p[1] / maxY * plotH;
                points.append(f("%.1f,%.1f ", x, y));
                svg.append(f("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>%n", x, y, color));
                if (ticks.add(p[0])) {
                    svg.append(f("<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%,d</text>%n", x, H - BOTTOM + 16, (long) p[0]));
                }
            }
            svg.append(f("<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>%n", points.toString().trim(), color,
                    line.dashed() ? " stroke-dasharray=\"6,4\"" : ""));
            int ly = top + 8 + 18 * s;
            svg.append(f("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"%s/>%n", W - RIGHT + 10, ly - 4,
                    W - RIGHT + 34, ly - 4, color, line.dashed() ? " stroke-dasharray=\"6,4\"" : ""));
            svg.append(f("<text x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>%n", W - RIGHT + 38, ly, color, escape(line.name())));
        }
        svg.append(f("<text x=\"%d\" y=\"%d\">%s (log scale)</text>%n", LEFT + plotW / 2 - 60, H - 8, escape(xLabel)));
        svg.append("</svg>\n");
        return svg.toString();
    }

    /** Writes {@code svg} to {@code file}, creating its directory. */
    static void write(Path file, String svg) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(file, svg, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the plot " + file, e);
        }
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    private static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
