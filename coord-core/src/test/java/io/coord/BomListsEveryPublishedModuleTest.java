package io.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A build check: coord-bom lists every published module of the reactor, so a new module cannot
 * be forgotten. A module is published unless its POM sets {@code maven.deploy.skip} to true
 * (coord-cli, coord-bench, coord-chaos). Runs from coord-core's directory and reads the POMs beside it.
 */
class BomListsEveryPublishedModuleTest {
    private static final Path ROOT = Reactor.ROOT;

    @Test
    void bomListsEveryPublishedModuleAndOnlyThose() throws Exception {
        String bom = Files.readString(ROOT.resolve("coord-bom/pom.xml"));
        List<String> published = new ArrayList<>();
        List<String> unpublished = new ArrayList<>();
        for (String module : Reactor.modules()) {
            (Reactor.published(module) ? published : unpublished).add(module);
        }
        // The Spring Boot pair is published: a service imports the BOM and names the starter without a version.
        assertTrue(published.containsAll(List.of("coord-spring-boot-starter", "coord-spring-boot-autoconfigure")),
                "the starter and its auto-configuration are published: " + published);
        for (String module : published) {
            assertTrue(bom.contains("<artifactId>" + module + "</artifactId>"), "coord-bom must list published module " + module);
        }
        for (String module : unpublished) {
            assertTrue(!bom.contains("<artifactId>" + module + "</artifactId>"), "coord-bom must not list unpublished " + module);
        }
    }

    @Test
    void bomPinsTheTestedCuratorAndZooKeeperAndTheReactorVersion() throws Exception {
        String root = Files.readString(ROOT.resolve("pom.xml"));
        String bom = Files.readString(ROOT.resolve("coord-bom/pom.xml"));
        for (String property : List.of("curator.version", "zookeeper.version")) {
            assertEquals(value(root, property), value(bom, property), property + " differs between the parent and the BOM");
        }
        assertEquals(value(root, "version"), value(bom, "coord.version"), "the BOM's coord.version is the reactor version");
        assertTrue(!bom.contains("jackson") && !bom.contains("guava") && !bom.contains("slf4j"),
                "the BOM leaves Jackson, Guava and SLF4J to the user's own BOMs");
    }

    private static String value(String pom, String tag) {
        Matcher m = Pattern.compile("<" + Pattern.quote(tag) + ">([^<]+)</" + Pattern.quote(tag) + ">").matcher(pom);
        if (tag.equals("version")) {
            // the project's own version: the first <version> after </parent>-less header, i.e. after artifactId coord-parent
            int at = pom.indexOf("<artifactId>coord-parent</artifactId>");
            m.region(at, pom.length());
        }
        assertTrue(m.find(), "no <" + tag + "> in POM");
        return m.group(1).trim();
    }
}
