package io.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A build check: what a Maven repository asks of a published artifact is in the build, the way
 * Curator, Jackson and Netty publish. A LICENSE file, licence, SCM, address and developer metadata
 * in the parent and in coord-bom (which has no parent) alike, a -sources and a -javadoc jar for
 * every published module, a release profile that signs, and a Maven wrapper. The jars themselves
 * are built by {@code mvn -Ppublish package}, which CI runs once; this test keeps the declarations
 * from going missing in between.
 */
class PublishableBuildTest {
    private static final List<String> METADATA = List.of("url", "licenses", "developers", "scm", "organization", "distributionManagement");

    @Test
    void licenseFileIsTheFullApacheLicense() {
        String license = Reactor.read("LICENSE");
        for (String part : List.of("Apache License", "Version 2.0, January 2004", "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION",
                "9. Accepting Warranty or Additional Liability.", "END OF TERMS AND CONDITIONS", "APPENDIX: How to apply the Apache License to your work.")) {
            assertTrue(license.contains(part), "LICENSE must be the full Apache License 2.0 text; missing: " + part);
        }
    }

    @Test
    void parentAndBomCarryTheSamePublicationMetadata() {
        String parent = Reactor.read("pom.xml");
        String bom = Reactor.read("coord-bom/pom.xml");
        for (String tag : METADATA) {
            String inParent = Reactor.element(parent, tag, "the parent POM");
            assertEquals(normalized(inParent), normalized(Reactor.element(bom, tag, "coord-bom")),
                    "<" + tag + "> differs between the parent and coord-bom (the BOM has no parent and repeats it)");
        }
        assertTrue(Reactor.element(parent, "licenses", "the parent POM").contains("<name>Apache-2.0</name>"), "the licence is Apache-2.0");
        for (String property : List.of("coord.home.url", "coord.scm.connection", "coord.releases.url", "coord.snapshots.url")) {
            assertEquals(Reactor.element(parent, property, "the parent POM"), Reactor.element(bom, property, "coord-bom"),
                    property + " differs between the parent and coord-bom");
        }
        assertTrue(!Reactor.element(bom, "description", "coord-bom").isEmpty(), "coord-bom has a description");
    }

    @Test
    void everyPublishedModuleGetsSourcesAndJavadocJarsAndTheReleaseProfileSigns() {
        String parent = Reactor.read("pom.xml");
        String release = profile(parent, "release");
        for (String plugin : List.of("maven-source-plugin", "maven-javadoc-plugin", "maven-gpg-plugin")) {
            assertTrue(release.contains("<artifactId>" + plugin + "</artifactId>"), "the release profile runs " + plugin);
        }
        String publish = profile(parent, "publish");
        assertTrue(publish.contains("maven-source-plugin") && publish.contains("maven-javadoc-plugin") && !publish.contains("maven-gpg-plugin"),
                "the publish profile builds both jars and signs nothing");
        assertTrue(profile(Reactor.read("coord-bom/pom.xml"), "release").contains("<artifactId>maven-gpg-plugin</artifactId>"),
                "coord-bom's release profile signs it");
        // Nothing but the two profiles runs gpg: a build without -Prelease never asks for a key.
        assertEquals(2, count(parent, "<artifactId>maven-gpg-plugin</artifactId>"), "gpg is declared once in pluginManagement and once in the release profile");
        for (String module : Reactor.modules()) {
            if (!Reactor.published(module)) {
                continue;
            }
            boolean hasCode = Files.isDirectory(Reactor.ROOT.resolve(module).resolve("src/main/java"));
            String pom = Reactor.pom(module);
            assertTrue(hasCode || (pom.contains("<classifier>sources</classifier>") && pom.contains("<classifier>javadoc</classifier>")),
                    module + " has no code, so the source and javadoc plugins make nothing: it must attach both jars itself");
            assertTrue(!pom.contains("<maven.javadoc.skip>true") && !pom.contains("<maven.source.skip>true"), module + " is published and skips a publication jar");
        }
    }

    @Test
    void mavenWrapperFetchesAMavenTheEnforcerAccepts() throws Exception {
        assertTrue(Files.isExecutable(Reactor.ROOT.resolve("mvnw")), "./mvnw exists and is executable (./coord looks for it)");
        String props = Reactor.read(".mvn/wrapper/maven-wrapper.properties");
        Matcher url = Pattern.compile("(?m)^distributionUrl=\\S+/apache-maven-(\\d+)\\.(\\d+)\\.(\\d+)-bin\\.zip$").matcher(props);
        assertTrue(url.find(), "the wrapper names a Maven binary distribution: " + props);
        Matcher floor = Pattern.compile("<requireMavenVersion><version>\\[(\\d+)\\.(\\d+),\\)</version>").matcher(Reactor.read("pom.xml"));
        assertTrue(floor.find(), "the enforcer names the lowest Maven");
        int wrapper = Integer.parseInt(url.group(1)) * 1000 + Integer.parseInt(url.group(2));
        int lowest = Integer.parseInt(floor.group(1)) * 1000 + Integer.parseInt(floor.group(2));
        assertTrue(wrapper >= lowest, "the wrapper's Maven " + url.group(1) + "." + url.group(2) + " is older than the enforcer's floor");
    }

    /** Comments and layout left out: what Maven reads. */
    private static String normalized(String xml) {
        return xml.replaceAll("(?s)<!--.*?-->", "").replaceAll("\\s+", " ").trim();
    }

    private static String profile(String pom, String id) {
        Matcher m = Pattern.compile("<profile>\\s*<id>" + Pattern.quote(id) + "</id>(.*?)</profile>", Pattern.DOTALL).matcher(pom);
        assertTrue(m.find(), "no profile " + id);
        return m.group(1);
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            n++;
        }
        return n;
    }
}
