package io.coord.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code ./coord bench --scale} writes: per recipe, one Markdown table (size, ours, peer,
 * ratio, server requests per operation where counted) between the recipe's markers in
 * {@code docs/BENCHMARKS.md}, replaced on each run, and one SVG plot ({@code docs/img/scale-NAME.svg},
 * size on a log axis, both sides) that the table links.
 */
final class ScaleReport {
    static final String BEGIN = "<!-- scale:begin -->";
    static final String END = "<!-- scale:end -->";
    static final String DOC = "docs/BENCHMARKS.md";
    static final String SECTION = "## Scale curves (`./coord bench --scale`)";
    /** A metric token that carries the size: {@code 64}, {@code w64}, {@code n500}; never {@code p99} or {@code ci90}. */
    private static final Pattern SIZE_TOKEN = Pattern.compile("(?!p\\d|ci\\d)[a-z]*(\\d+)");

    private ScaleReport() {
    }

    /** One size of one line: the figure, and the server requests per operation there (or null). */
    record Point(int size, Figure figure, Figure requests) {
    }

    /** One line of a recipe's curve, by size. */
    record Line(ScaleRecipe.Curve curve, List<Point> points) {
        Line {
            points = List.copyOf(points);
        }
    }

    /** The size token of {@code metric} ({@code handoff.p50.w64}: 64), if it has one. */
    static OptionalInt sizeOf(String metric) {
        for (String token : metric.split("\\.")) {
            Matcher m = SIZE_TOKEN.matcher(token);
            if (m.matches()) {
                return OptionalInt.of(Integer.parseInt(m.group(1)));
            }
        }
        return OptionalInt.empty();
    }

    /** {@code metric} without its size token ({@code handoff.p50.w64}: {@code handoff.p50}). */
    static String bare(String metric) {
        List<String> kept = new ArrayList<>();
        boolean dropped = false;
        for (String token : metric.split("\\.")) {
            if (!dropped && SIZE_TOKEN.matcher(token).matches()) {
                dropped = true;
            } else {
                kept.add(token);
            }
        }
        return String.join(".", kept);
    }

    /** The lines of {@code recipe}'s curve found among {@code figures}, each by size. */
    static List<Line> lines(ScaleRecipe recipe, List<Figure> figures) {
        List<Line> lines = new ArrayList<>();
        for (ScaleRecipe.Curve c : recipe.curves()) {
            List<Point> points = new ArrayList<>();
            for (Figure f : figures) {
                if (f.bench().equals(c.bench()) && bare(f.metric()).equals(c.metric())) {
                    int size = sizeOf(f.metric()).orElse(c.fallbackSize());
                    if (size > 0) {
                        points.add(new Point(size, f, requests(c, size, figures).orElse(null)));
                    }
                }
            }
            points.sort(Comparator.comparingInt(Point::size));
            lines.add(new Line(c, points));
        }
        return lines;
    }

    private static Optional<Figure> requests(ScaleRecipe.Curve c, int size, List<Figure> figures) {
        if (c.requests() == null) {
            return Optional.empty();
        }
        return figures.stream().filter(f -> f.bench().equals(c.bench()) && bare(f.metric()).equals(c.requests())
                && sizeOf(f.metric()).orElse(c.fallbackSize()) == size).findFirst();
    }

    /** The file name of {@code recipe}'s plot under {@code docs/img/}. */
    static String plotName(ScaleRecipe recipe) {
        return "scale-" + recipe.name() + ".svg";
    }

    /** The SVG plot: every line in the first line's unit, ours solid and the peer dashed in one colour. */
    static String svg(ScaleRecipe recipe, List<Line> lines) {
        String unit = lines.stream().filter(l -> !l.points().isEmpty()).map(l -> l.points().get(0).figure().unit()).findFirst().orElse("ms");
        List<Plot.Series> series = new ArrayList<>();
        for (Line l : lines) {
            if (l.points().isEmpty() || !l.points().get(0).figure().unit().equals(unit)) {
                continue;
            }
            series.add(new Plot.Series(l.curve().label() + ", ours", false,
                    l.points().stream().map(p -> new double[] {p.size(), p.figure().ours()}).toList()));
            if (l.points().stream().allMatch(p -> p.figure().peer() != null)) {
                series.add(new Plot.Series(l.curve().label() + ", peer", true,
                        l.points().stream().map(p -> new double[] {p.size(), p.figure().peer()}).toList()));
            }
        }
        return Plot.svg("coord " + recipe.name() + ": " + recipe.title() + "\npeer: " + recipe.peer() + " (dashed)", recipe.xLabel(),
                unit, series, true);
    }

    /** The Markdown block of one recipe, its markers included. */
    static String markdown(ScaleRecipe recipe, List<Line> lines, String runLine) {
        StringBuilder md = new StringBuilder();
        md.append(begin(recipe)).append('\n');
        md.append("### ").append(recipe.name()).append(": ").append(recipe.title()).append("\n\n");
        md.append(runLine).append("\n\n");
        md.append("![").append(recipe.name()).append(" scale curve](img/").append(plotName(recipe)).append(")\n\n");
        boolean requests = recipe.curves().stream().anyMatch(c -> c.requests() != null);
        md.append("| ").append(recipe.xLabel()).append(" | metric | ours | ").append(recipe.peer()).append(" | ours/peer |")
                .append(requests ? " server requests per op, ours / peer |" : "").append('\n');
        md.append("| ---: | --- | ---: | ---: | ---: |").append(requests ? " ---: |" : "").append('\n');
        for (Line l : lines) {
            for (Point p : l.points()) {
                Figure f = p.figure();
                md.append(String.format(Locale.ROOT, "| %,d | %s | %s %s | %s | %s |", p.size(), l.curve().label(), Table.number(f.ours()),
                        f.unit(), f.peer() == null ? "–" : Table.number(f.peer()) + " " + f.unit(),
                        f.ratio() == null ? "–" : String.format(Locale.ROOT, "%.2f ×", f.ratio())));
                if (requests) {
                    Figure r = p.requests();
                    md.append(r == null ? " – |" : " " + Table.number(r.ours()) + " / " + (r.peer() == null ? "–" : Table.number(r.peer())) + " |");
                }
                md.append('\n');
            }
        }
        md.append('\n');
        List<String> growth = new ArrayList<>();
        for (Line l : lines) {
            if (l.points().size() >= 2) {
                Figure first = l.points().get(0).figure();
                Figure last = l.points().get(l.points().size() - 1).figure();
                growth.add(String.format(Locale.ROOT, "%s %s × ours, %s × peer", l.curve().label(), growth(first.ours(), last.ours()),
                        first.peer() == null || last.peer() == null ? "–" : growth(first.peer(), last.peer())));
            }
        }
        TreeSet<Integer> measured = new TreeSet<>();
        lines.forEach(l -> l.points().forEach(p -> measured.add(p.size())));
        if (!measured.isEmpty()) {
            md.append(String.format(Locale.ROOT, "Growth from %,d to %,d %s: %s.%n%n", measured.first(), measured.last(), recipe.xLabel(),
                    growth.isEmpty() ? "one size only" : String.join("; ", growth)));
        }
        List<Integer> missing = recipe.sizes().stream().filter(s -> !measured.contains(s)).toList();
        if (!missing.isEmpty()) {
            md.append("Not measured in this run: ").append(missing).append(' ').append(recipe.xLabel())
                    .append(" (the benchmark ran ").append(measured.isEmpty() ? "no size" : measured.toString())
                    .append("; see the property in `ScaleRecipe`).\n\n");
        }
        md.append("Why: ").append(recipe.cause()).append('\n');
        md.append(end(recipe));
        return md.toString();
    }

    private static String growth(double from, double to) {
        return from <= 0 ? "–" : String.format(Locale.ROOT, "%.1f", to / from);
    }

    static String begin(ScaleRecipe recipe) {
        return "<!-- scale:" + recipe.name() + ":begin -->";
    }

    static String end(ScaleRecipe recipe) {
        return "<!-- scale:" + recipe.name() + ":end -->";
    }

    /**
     * {@code doc} with {@code recipe}'s block replaced by {@code block}; a block not there yet goes
     * just before {@link #END}, and a document without the section gets it appended.
     *
     * @throws IllegalArgumentException if a marker is there without its partner, or out of order
     */
    static String replace(String doc, ScaleRecipe recipe, String block) {
        String begin = begin(recipe);
        String end = end(recipe);
        int b = doc.indexOf(begin);
        int e = doc.indexOf(end);
        if (b >= 0 && e > b) {
            return doc.substring(0, b) + block + doc.substring(e + end.length());
        }
        if (b >= 0 || e >= 0) {
            throw new IllegalArgumentException(DOC + ": " + begin + " and " + end + " must both be there, in that order (begin at "
                    + b + ", end at " + e + ")");
        }
        int outerBegin = doc.indexOf(BEGIN);
        int outerEnd = doc.indexOf(END);
        if (outerBegin < 0 && outerEnd < 0) {
            String sep = doc.endsWith("\n") ? "\n" : "\n\n";
            doc = doc + sep + SECTION + "\n\n" + BEGIN + "\n" + END + "\n";
            outerEnd = doc.indexOf(END);
        } else if (outerBegin < 0 || outerEnd < outerBegin) {
            throw new IllegalArgumentException(DOC + ": " + BEGIN + " and " + END + " must both be there, in that order");
        }
        return doc.substring(0, outerEnd) + block + "\n\n" + doc.substring(outerEnd);
    }

    /**
     * Writes each recipe's plot under {@code root/docs/img/} and its table into
     * {@code root/docs/BENCHMARKS.md}; returns the Markdown blocks written.
     */
    static List<String> write(Path root, List<ScaleRecipe> recipes, List<Figure> figures, String runLine) {
        Path docFile = root.resolve(DOC);
        try {
            String doc = Files.isRegularFile(docFile) ? Files.readString(docFile, StandardCharsets.UTF_8) : "# Benchmarks\n";
            List<String> blocks = new ArrayList<>();
            for (ScaleRecipe r : recipes) {
                List<Line> lines = lines(r, figures);
                Plot.write(root.resolve("docs/img").resolve(plotName(r)), svg(r, lines));
                String block = markdown(r, lines, runLine);
                blocks.add(block);
                doc = replace(doc, r, block);
            }
            Files.createDirectories(docFile.getParent());
            Files.writeString(docFile, doc, StandardCharsets.UTF_8);
            return blocks;
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the scale tables into " + docFile, e);
        }
    }
}
