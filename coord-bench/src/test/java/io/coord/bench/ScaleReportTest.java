package io.coord.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

/** The scale curves' writer: the SVG plot and the Markdown tables between their markers. */
class ScaleReportTest {
    @TempDir
    Path root;

    private static ScaleRecipe lock() {
        return ScaleRecipe.all().stream().filter(r -> r.name().equals("lock")).findFirst().orElseThrow();
    }

    private static List<Figure> handoffs(double scale) {
        return List.of(
                Figure.lower(LockHandoffBench.NAME, "handoff.p50.w8", "ms", 2 * scale, 3.0, LockBench.PEER),
                Figure.lower(LockHandoffBench.NAME, "handoff.p99.w8", "ms", 5 * scale, 6.0, LockBench.PEER),
                Figure.lower(LockHandoffBench.NAME, "handoff.requests.w8", "requests", 6, 5.0, LockBench.PEER),
                Figure.lower(LockHandoffBench.NAME, "handoff.p50.w64", "ms", 4 * scale, 5.0, LockBench.PEER),
                Figure.lower(LockHandoffBench.NAME, "handoff.p99.w64", "ms", 9 * scale, 10.0, LockBench.PEER),
                Figure.lower("other.bench", "handoff.p50.w8", "ms", 99, 99.0, "x"));
    }

    @Test
    void theSvgIsWellFormedXmlWithOursAndThePeerForEveryLine() throws Exception {
        ScaleRecipe lock = lock();
        String svg = ScaleReport.svg(lock, ScaleReport.lines(lock, handoffs(1)));
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        assertEquals("svg", doc.getDocumentElement().getNodeName());
        NodeList lines = doc.getElementsByTagName("polyline");
        assertEquals(4, lines.getLength(), "p50 and p99, ours and peer:\n" + svg);
        int dashed = 0;
        for (int i = 0; i < lines.getLength(); i++) {
            String points = lines.item(i).getAttributes().getNamedItem("points").getNodeValue();
            assertEquals(2, points.split(" ").length, "one point per size (8, 64): " + points);
            if (lines.item(i).getAttributes().getNamedItem("stroke-dasharray") != null) {
                dashed++;
            }
        }
        assertEquals(2, dashed, "the peer's lines are dashed");
        assertTrue(svg.contains("handoff p50, ours") && svg.contains("handoff p50, peer"), svg);
    }

    @Test
    void theTableBetweenTheMarkersIsReplacedNotAppendedAndTheRestIsKept() throws Exception {
        Path doc = root.resolve(ScaleReport.DOC);
        Files.createDirectories(doc.getParent());
        Files.writeString(doc, "# Benchmarks\n\nhand-written intro\n");
        ScaleRecipe lock = lock();

        ScaleReport.write(root, List.of(lock), handoffs(1), "run one");
        String first = Files.readString(doc);
        assertTrue(first.contains("hand-written intro") && first.contains(ScaleReport.BEGIN) && first.contains(ScaleReport.END), first);
        assertTrue(first.contains("| 8 | handoff p50 | 2.00 ms | 3.00 ms | 0.67 × | 6.00 / 5.00 |"), "with the requests per handoff: " + first);
        assertTrue(first.contains("| 64 | handoff p50 | 4.00 ms | 5.00 ms | 0.80 × | – |"), "none counted at 64 here: " + first);
        assertTrue(first.contains("](img/scale-lock.svg)"), "the table links its plot: " + first);
        assertTrue(Files.isRegularFile(root.resolve("docs/img/scale-lock.svg")), "the plot is written where the link points");
        assertTrue(first.contains("Not measured in this run: [512]"), "a size asked for but not run is named: " + first);

        Files.writeString(doc, first + "\nhand-written after\n");
        ScaleReport.write(root, List.of(lock), handoffs(10), "run two");
        String second = Files.readString(doc);
        assertEquals(1, count(second, ScaleReport.begin(lock)), second);
        assertEquals(1, count(second, ScaleReport.BEGIN), second);
        assertTrue(second.contains("run two") && !second.contains("run one"), second);
        assertTrue(second.contains("| 8 | handoff p50 | 20.00 ms | 3.00 ms | 6.67 × |"), second);
        assertFalse(second.contains("| 8 | handoff p50 | 2.00 ms |"), "the old table is gone: " + second);
        assertTrue(second.contains("hand-written intro") && second.contains("hand-written after"), second);
    }

    @Test
    void aMarkerWithoutItsPartnerIsAnErrorNamingIt() {
        ScaleRecipe lock = lock();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ScaleReport.replace("x\n" + ScaleReport.begin(lock) + "\n", lock, "block"));
        assertTrue(e.getMessage().contains(ScaleReport.end(lock)), e.getMessage());
    }

    @Test
    void theSizeIsTheMetricsNumberTokenNeverAPercentile() {
        assertEquals(OptionalInt.of(64), ScaleReport.sizeOf("handoff.p50.w64"));
        assertEquals(OptionalInt.of(16), ScaleReport.sizeOf("enter.16.requests.last"));
        assertEquals(OptionalInt.empty(), ScaleReport.sizeOf("latency.p99"));
        assertEquals("handoff.p50", ScaleReport.bare("handoff.p50.w64"));
        assertEquals("enter.requests.last", ScaleReport.bare("enter.16.requests.last"));
        assertEquals("shared.latency.p99", ScaleReport.bare("shared.latency.p99"));
    }

    @Test
    void everyRecipeNamesRegisteredBenchmarksAndBadSizesAreNamed() {
        assertEquals(ScaleRecipe.all().stream().mapToInt(r -> r.passes().size()).sum(), ScaleRecipe.benchmarks(ScaleRecipe.all()).size());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ScaleRecipe.select(List.of("lock", "locks")));
        assertTrue(e.getMessage().contains("\"locks\""), e.getMessage());
        System.setProperty("coord.bench.test.sizes", "8,six4");
        try {
            IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> Sizes.of("coord.bench.test.sizes", "1", 1));
            assertTrue(bad.getMessage().contains("\"six4\"") && bad.getMessage().contains("coord.bench.test.sizes"), bad.getMessage());
        } finally {
            System.clearProperty("coord.bench.test.sizes");
        }
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }
}
