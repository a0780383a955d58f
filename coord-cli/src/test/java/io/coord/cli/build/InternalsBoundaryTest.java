package io.coord.cli.build;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A build check in place of {@code module-info.java}, which cannot work here: ZooKeeper 3.9.5's
 * {@code zookeeper} and {@code zookeeper-jute} jars both contain
 * {@code org.apache.zookeeper.server.persistence} and {@code org.apache.zookeeper.server.quorum},
 * so a named module that reads them (and Curator, which needs both) does not compile. What a module
 * descriptor would have enforced is checked here instead, on the main classes of every module of
 * the reactor, which coord-cli's test classpath sees all of:
 * <ul>
 *   <li>only coord-core and the recipe modules reference {@code io.coord.internal} (read from each
 *       class file's constant pool: every class, descriptor and signature it refers to);
 *   <li>no public type outside {@code io.coord.internal} names an internal type in its public
 *       surface (supertypes, public or protected fields, methods, constructors, their generic
 *       signatures and exceptions, members inherited from a hidden superclass);
 *   <li>every module's jar carries its {@code Automatic-Module-Name}, {@code io.coord.<module>} (hyphens become dots).
 * </ul>
 */
class InternalsBoundaryTest {
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();
    private static final String INTERNAL = "io/coord/internal/";
    /** May use io.coord.internal: the package's home and the recipes it is shared by. */
    private static final Set<String> ALLOWED = Set.of("coord-core", "coord-lock", "coord-election", "coord-membership",
            "coord-naming", "coord-queue", "coord-barrier", "coord-config");
    private static final Pattern MODULE_DIR = Pattern.compile(".*[/\\\\](coord-[a-z]+(?:-[a-z]+)*)[/\\\\]target[/\\\\]classes[/\\\\]?");
    private static final Pattern MODULE_JAR = Pattern.compile(".*[/\\\\](coord-[a-z]+(?:-[a-z]+)*)-[0-9][^/\\\\]*(?<!-tests)\\.jar");

    /** Every jar-packaged module of the reactor: its main output on this classpath (a classes directory or its jar). */
    private static Map<String, Path> outputs;
    private static Map<String, List<ClassFile>> classes;

    @BeforeAll
    static void readEveryModule() throws IOException {
        List<String> modules = jarModules();
        outputs = new LinkedHashMap<>();
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        for (String entry : classpath.split(Pattern.quote(File.pathSeparator))) {
            moduleOf(entry).filter(modules::contains).ifPresent(m -> outputs.putIfAbsent(m, Path.of(entry)));
        }
        Set<String> missing = new TreeSet<>(modules);
        missing.removeAll(outputs.keySet());
        assertTrue(missing.isEmpty(), "coord-cli's test classpath must see every module's main classes; missing " + missing
                + " (found " + outputs + ")");
        classes = new LinkedHashMap<>();
        for (Map.Entry<String, Path> e : outputs.entrySet()) {
            classes.put(e.getKey(), read(e.getValue()));
        }
        assertTrue(classes.get("coord-core").stream().anyMatch(c -> c.name().startsWith(INTERNAL)),
                "read coord-core's classes, io.coord.internal among them");
    }

    @Test
    void onlyCoreAndTheRecipesReferenceInternals() {
        List<String> violations = new ArrayList<>();
        classes.forEach((module, files) -> {
            if (ALLOWED.contains(module)) {
                return;
            }
            for (ClassFile c : files) {
                Set<String> used = new TreeSet<>();
                for (String s : c.utf8()) {
                    Matcher m = Pattern.compile("io/coord/internal/[A-Za-z0-9_$/]+").matcher(s);
                    while (m.find()) {
                        used.add(m.group().replace('/', '.'));
                    }
                }
                if (!used.isEmpty()) {
                    violations.add(module + ": " + c.dottedName() + " references " + String.join(", ", used));
                }
            }
        });
        assertTrue(violations.isEmpty(), "io.coord.internal is for coord-core and the recipe modules " + new TreeSet<>(ALLOWED)
                + " only; use the public API instead:\n  " + String.join("\n  ", violations));
    }

    @Test
    void noPublicTypeNamesAnInternalTypeInItsPublicSurface() {
        Map<String, ClassFile> byName = new LinkedHashMap<>();
        classes.values().forEach(files -> files.forEach(c -> byName.put(c.name(), c)));
        List<String> leaks = new ArrayList<>();
        int checked = 0;
        for (ClassFile c : byName.values()) {
            if (c.name().startsWith(INTERNAL) || !accessible(c, byName)) {
                continue;
            }
            checked++;
            surfaceLeaks(c, c, byName, leaks);
        }
        assertTrue(checked > 100, "checked the public types of every module: " + checked);
        assertTrue(leaks.isEmpty(), "public types outside io.coord.internal must not expose it (users would"
                + " depend on internals):\n  " + String.join("\n  ", leaks));
    }

    /** Leaks of {@code c}'s own surface and of the public members it inherits from a hidden Coord superclass. */
    private static void surfaceLeaks(ClassFile publicType, ClassFile c, Map<String, ClassFile> byName, List<String> leaks) {
        String who = publicType.dottedName() + (c == publicType ? "" : " (inherited from " + c.dottedName() + ")");
        if (c == publicType || !accessible(c, byName)) {
            note(leaks, who, "extends", c.superName());
            c.interfaces().forEach(i -> note(leaks, who, "implements", i));
            note(leaks, who, "generic signature", c.signature());
            for (ClassFile.Member m : c.members()) {
                if (m.visibleOutsidePackage()) {
                    String member = m.name() + m.descriptor();
                    note(leaks, who, member, m.descriptor());
                    note(leaks, who, member + " signature", m.signature());
                    m.exceptions().forEach(e -> note(leaks, who, member + " throws", e));
                }
            }
        }
        ClassFile parent = c.superName() == null ? null : byName.get(c.superName());
        if (parent != null && !accessible(parent, byName)) {
            surfaceLeaks(publicType, parent, byName, leaks);
        }
    }

    private static void note(List<String> leaks, String who, String where, String text) {
        if (text != null && text.contains(INTERNAL)) {
            leaks.add(who + ": " + where + " names " + text);
        }
    }

    /** Whether code outside the class's package can name it: public, and so is every class it is nested in. */
    private static boolean accessible(ClassFile c, Map<String, ClassFile> byName) {
        if (c.nested() == null) {
            return (c.access() & ClassFile.ACC_PUBLIC) != 0;
        }
        if ((c.nested().access() & (ClassFile.ACC_PUBLIC | ClassFile.ACC_PROTECTED)) == 0 || c.nested().outer() == null) {
            return false;
        }
        ClassFile outer = byName.get(c.nested().outer());
        return outer != null && accessible(outer, byName);
    }

    @Test
    void everyModuleJarCarriesItsAutomaticModuleName() throws IOException {
        List<String> modules = jarModules();
        for (String module : modules) {
            String pom = Files.readString(ROOT.resolve(module).resolve("pom.xml"));
            assertTrue(pom.contains("<coord.moduleName>" + moduleName(module) + "</coord.moduleName>"),
                    module + "/pom.xml must set coord.moduleName to " + moduleName(module));
        }
        // The jars themselves, where the build has made them (a verify run puts them on this classpath).
        int jars = 0;
        for (Map.Entry<String, Path> e : outputs.entrySet()) {
            if (!Files.isRegularFile(e.getValue())) {
                continue;
            }
            jars++;
            try (JarFile jar = new JarFile(e.getValue().toFile())) {
                assertEquals(moduleName(e.getKey()), jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name"),
                        "Automatic-Module-Name in " + e.getValue());
            }
            // and the JDK agrees: on the module path this jar is that module
            Set<String> names = ModuleFinder.of(e.getValue()).findAll().stream()
                    .map(ModuleReference::descriptor).map(d -> d.name()).collect(Collectors.toSet());
            assertEquals(Set.of(moduleName(e.getKey())), names, "module of " + e.getValue());
        }
        System.out.println("InternalsBoundaryTest: Automatic-Module-Name checked in " + jars + " built jars, "
                + modules.size() + " POMs");
    }

    /** {@code coord-lock} is {@code io.coord.lock}, {@code coord-spring-boot-starter} is {@code io.coord.spring.boot.starter}. */
    private static String moduleName(String module) {
        return "io.coord." + module.substring("coord-".length()).replace('-', '.');
    }

    /** The reactor's Coord modules that build a jar (coord-bom is a POM; examples/ are applications), from the parent POM. */
    private static List<String> jarModules() throws IOException {
        String root = Files.readString(ROOT.resolve("pom.xml"));
        List<String> modules = new ArrayList<>();
        Matcher m = Pattern.compile("<module>([^<]+)</module>").matcher(root);
        while (m.find()) {
            String module = m.group(1).trim();
            if (module.startsWith("examples/")) {
                continue; // an application beside the toolkit (not published, on no Coord classpath): not a Coord module
            }
            if (!Files.readString(ROOT.resolve(module).resolve("pom.xml")).contains("<packaging>pom</packaging>")) {
                modules.add(module);
            }
        }
        assertTrue(modules.contains("coord-core") && modules.contains("coord-bench"), "found the reactor: " + modules);
        return modules;
    }

    private static Optional<String> moduleOf(String classpathEntry) {
        for (Pattern p : List.of(MODULE_DIR, MODULE_JAR)) {
            Matcher m = p.matcher(classpathEntry);
            if (m.matches()) {
                return Optional.of(m.group(1));
            }
        }
        return Optional.empty();
    }

    private static List<ClassFile> read(Path output) throws IOException {
        List<ClassFile> out = new ArrayList<>();
        if (Files.isDirectory(output)) {
            try (Stream<Path> files = Files.walk(output)) {
                for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".class"))::iterator) {
                    out.add(parse(f.toString(), Files.readAllBytes(f)));
                }
            }
            return out;
        }
        try (JarFile jar = new JarFile(output.toFile())) {
            for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements();) {
                JarEntry entry = e.nextElement();
                if (entry.getName().endsWith(".class") && !entry.getName().startsWith("META-INF/")) {
                    try (InputStream in = jar.getInputStream(entry)) {
                        out.add(parse(output + "!/" + entry.getName(), in.readAllBytes()));
                    }
                }
            }
        }
        return out;
    }

    private static ClassFile parse(String where, byte[] bytes) {
        try {
            return ClassFile.parse(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read class file " + where, e);
        }
    }
}
