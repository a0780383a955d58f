package io.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Coord's warnings reach the application's SLF4J binding on both generations: a client in a child
 * JVM whose classpath is coord-core, Curator, ZooKeeper and one generation's slf4j-api with its
 * slf4j-simple (1.7.36 with 1.7.36, the way logback 1.2 apps run; 2.x with 2.x) logs the clamped
 * session timeout WARN, and slf4j-simple prints it. Coord calls only the API both generations have,
 * so neither fails to link. The control shows what the optional slf4j-api declaration avoids: an
 * SLF4J 2 api beside a 1.7 binding drops Coord's warning (SLF4J falls back to its no-op logger).
 */
class Slf4jGenerationsIT {
    @RegisterExtension
    static final CoreTestServer ZK = new CoreTestServer();

    private static final String WARNING = "WARN io.coord.CoordClient - ZooKeeper at ";
    private static final String V1 = System.getProperty("coord.slf4j1.version", "1.7.36");
    private static final String V2 = System.getProperty("coord.slf4j2.version", "2.0.17");

    @TempDir
    Path tmp;

    @Test
    void slf4j17ApiWithA17BindingPrintsCoordsWarning() throws Exception {
        String stderr = runChild(V1, V1);
        assertTrue(stderr.contains(WARNING), "Coord's WARN reached slf4j-simple " + V1 + "; stderr:\n" + stderr);
        assertFalse(stderr.contains("NOP"), "no fallback to the no-op logger; stderr:\n" + stderr);
    }

    @Test
    void slf4j2ApiWithA2ProviderPrintsCoordsWarning() throws Exception {
        String stderr = runChild(V2, V2);
        assertTrue(stderr.contains(WARNING), "Coord's WARN reached slf4j-simple " + V2 + "; stderr:\n" + stderr);
        assertFalse(stderr.contains("NOP"), "no fallback to the no-op logger; stderr:\n" + stderr);
    }

    @Test
    void controlSlf4j2ApiBesideA17BindingLosesTheWarning() throws Exception {
        String stderr = runChild(V2, V1);
        assertFalse(stderr.contains(WARNING), "SLF4J 2 ignores a 1.7 binding; stderr:\n" + stderr);
        assertTrue(stderr.contains("No SLF4J providers were found"), "SLF4J says why; stderr:\n" + stderr);
    }

    /**
     * The declaration that lets the application's generation win under Maven's nearest-wins rule:
     * no published module brings an slf4j-api of its own (ZooKeeper's, one level further down, is
     * the fallback). Without it, coord-core's SLF4J 2 ties with logback 1.2's 1.7 and wins when
     * Coord is declared first: the control above.
     */
    @Test
    void everyPublishedModuleLeavesTheSlf4jVersionToTheApplication() {
        for (String module : Reactor.modules()) {
            String pom = Reactor.pom(module);
            if (Reactor.published(module) && pom.contains("<artifactId>slf4j-api</artifactId>")) {
                assertTrue(pom.contains("<artifactId>slf4j-api</artifactId><optional>true</optional>"),
                        module + " is published and declares slf4j-api: it must be <optional>true</optional>");
            }
        }
    }

    /** Runs {@link Slf4jWarningChild} with slf4j-api {@code api} and slf4j-simple {@code binding}; returns its stderr. */
    private String runChild(String api, String binding) throws Exception {
        Path jars = Path.of(System.getProperty("coord.slf4j.dir", "target/slf4j"));
        List<String> classpath = new ArrayList<>();
        for (String jar : List.of("slf4j-api-" + api + ".jar", "slf4j-simple-" + binding + ".jar")) {
            Path path = jars.resolve(jar);
            assertTrue(Files.isRegularFile(path), "the build copies " + jar + " to " + jars + " (maven-dependency-plugin, coord-core's POM)");
            classpath.add(path.toString());
        }
        String surefire = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        for (String entry : surefire.split(File.pathSeparator)) {
            String name = Path.of(entry).getFileName().toString();
            if (!name.startsWith("slf4j-")) { // this JVM's own SLF4J stays out
                classpath.add(entry);
            }
        }
        Path err = tmp.resolve("child-" + api + "-" + binding + ".stderr");
        Path out = tmp.resolve("child-" + api + "-" + binding + ".stdout");
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:TieredStopAtLevel=1", "-Djava.net.preferIPv4Stack=true",
                "-cp", String.join(File.pathSeparator, classpath), Slf4jWarningChild.class.getName(), ZK.connectString())
                .redirectError(err.toFile()).redirectOutput(out.toFile()).start();
        try {
            Duration bound = SecurityFixtures.scaled(Duration.ofSeconds(60));
            assertTrue(child.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS), "the child exits within " + bound + "; stderr:\n" + read(err));
            assertEquals(0, child.exitValue(), "the child connected and closed; stdout:\n" + read(out) + "\nstderr:\n" + read(err));
            return read(err);
        } finally {
            child.destroyForcibly();
        }
    }

    private static String read(Path file) throws Exception {
        return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    }
}
