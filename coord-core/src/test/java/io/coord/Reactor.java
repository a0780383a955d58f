package io.coord;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The reactor's POMs as text, for the build checks ({@link BomListsEveryPublishedModuleTest},
 * {@link PublishableBuildTest}). They run from coord-core's directory and read the files beside it;
 * text, not a Maven model, because what they check is what a reader of the POM sees.
 */
final class Reactor {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private Reactor() {
    }

    static String read(String relative) {
        try {
            return Files.readString(ROOT.resolve(relative));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + ROOT.resolve(relative), e);
        }
    }

    /** The modules the root POM lists, coord-bom left out (it is the list, not a listed module). */
    static List<String> modules() {
        List<String> modules = new ArrayList<>();
        Matcher m = Pattern.compile("<module>([^<]+)</module>").matcher(read("pom.xml"));
        while (m.find()) {
            String module = m.group(1).trim();
            if (!module.equals("coord-bom")) {
                modules.add(module);
            }
        }
        assertTrue(modules.contains("coord-core"), "found the reactor: " + modules);
        return modules;
    }

    /** A module is published unless its POM sets {@code maven.deploy.skip} to true (coord-cli, coord-bench, coord-chaos). */
    static boolean published(String module) {
        return !pom(module).contains("<maven.deploy.skip>true</maven.deploy.skip>");
    }

    static String pom(String module) {
        return read(module + "/pom.xml");
    }

    /** The text of the first {@code <tag>...</tag>} in {@code xml}, trimmed; fails naming the tag if there is none. */
    static String element(String xml, String tag, String where) {
        Matcher m = Pattern.compile("<" + Pattern.quote(tag) + "(?:\\s[^>]*)?>(.*?)</" + Pattern.quote(tag) + ">", Pattern.DOTALL).matcher(xml);
        assertTrue(m.find(), "no <" + tag + "> in " + where);
        return m.group(1).trim();
    }
}
