package io.coord.cli.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code ```java} block in README.md and docs/*.md compiles against the real modules, so the
 * docs cannot drift from the API. Each block becomes the body of a method in a subclass of
 * {@link SnippetContext} (which supplies {@code client}, {@code executor}, {@code log}...), with
 * the Coord packages and the usual JDK ones imported. Nothing is run.
 */
class DocSnippetsCompileTest {
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();

    private static final String IMPORTS = Stream.of(
                    "io.coord", "io.coord.fence", "io.coord.lock", "io.coord.election", "io.coord.membership",
                    "io.coord.naming", "io.coord.queue", "io.coord.barrier", "io.coord.config",
                    "java.util", "java.util.concurrent", "java.time", "java.nio.file", "java.sql", "javax.sql")
            .map(p -> "import " + p + ".*;")
            .collect(Collectors.joining(" "))
            + " import static java.nio.charset.StandardCharsets.UTF_8;"
            + " import org.apache.curator.framework.CuratorFramework;"
            + " import org.apache.curator.framework.recipes.locks.InterProcessLock;"
            + " import org.apache.curator.framework.api.transaction.TransactionOp;"
            + " import org.apache.zookeeper.CreateMode;"
            + " import org.apache.zookeeper.ZooDefs;";

    record Snippet(Path file, int line, String code) {
        String className() {
            String base = file.getFileName().toString().replaceAll("[^A-Za-z0-9]", "_");
            return "Snippet_" + base + "_L" + line;
        }

        String source() {
            // One line of header, so a diagnostic on line n of the source is line n-1 of the block.
            return "package io.coord.cli.docs.gen; " + IMPORTS
                    + " @SuppressWarnings(\"all\") final class " + className()
                    + " extends io.coord.cli.docs.SnippetContext { void snippet() throws Exception {\n"
                    + code + "\n}}\n";
        }
    }

    static List<Snippet> snippets(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        List<Snippet> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).strip().equals("```java")) {
                int start = i + 1;
                StringBuilder code = new StringBuilder();
                int j = start;
                while (j < lines.size() && !lines.get(j).strip().equals("```")) {
                    code.append(lines.get(j)).append('\n');
                    j++;
                }
                if (j == lines.size()) {
                    throw new AssertionError(file + ":" + i + ": ```java block is never closed");
                }
                out.add(new Snippet(file, start + 1, code.toString()));
                i = j;
            }
        }
        return out;
    }

    static List<Path> documents() throws IOException {
        List<Path> docs = new ArrayList<>();
        docs.add(ROOT.resolve("README.md"));
        try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
            files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        return docs;
    }

    @Test
    void everyJavaSnippetInTheReadmeAndDocsCompiles(@TempDir Path out) throws IOException {
        List<Snippet> all = new ArrayList<>();
        for (Path doc : documents()) {
            all.addAll(snippets(doc));
        }
        assertTrue(all.size() >= 8, "expected a snippet per recipe at least, found " + all.size());

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        List<JavaFileObject> units = all.stream().map(DocSnippetsCompileTest::unit).collect(Collectors.toList());
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
            boolean ok = javac.getTask(new StringWriter(), files, diagnostics,
                    List.of("-classpath", classpath, "-d", out.toString(), "-proc:none", "--release", "17", "-Xlint:none"),
                    null, units).call();
            String report = diagnostics.getDiagnostics().stream()
                    .filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
                    .map(d -> where(all, d) + ": " + d.getMessage(Locale.ROOT))
                    .collect(Collectors.joining("\n"));
            assertTrue(ok && report.isEmpty(), "doc snippets that do not compile:\n" + report);
        }
    }

    @Test
    void aBrokenSnippetIsReportedWithItsDocumentAndLine(@TempDir Path dir) throws IOException {
        Path doc = dir.resolve("BROKEN.md");
        Files.writeString(doc, "text\n```java\nCoordClient c = client;\nc.noSuchMethod();\n```\n");
        List<Snippet> snippets = snippets(doc);
        assertEquals(1, snippets.size());
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        boolean ok = javac.getTask(new StringWriter(), null, diagnostics,
                List.of("-classpath", classpath, "-d", dir.toString(), "-proc:none"), null,
                List.of(unit(snippets.get(0)))).call();
        assertFalse(ok, "a call to a method that does not exist must not compile");
        String where = where(snippets, diagnostics.getDiagnostics().get(0));
        assertTrue(where.endsWith("BROKEN.md:4"), "the error points at the snippet's line in the document: " + where);
    }

    private static JavaFileObject unit(Snippet s) {
        URI uri = URI.create("string:///io/coord/cli/docs/gen/" + s.className() + JavaFileObject.Kind.SOURCE.extension);
        return new SimpleJavaFileObject(uri, JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return s.source();
            }
        };
    }

    private static String where(List<Snippet> snippets, Diagnostic<? extends JavaFileObject> d) {
        if (d.getSource() == null) {
            return "(no source)";
        }
        String name = d.getSource().getName();
        for (Snippet s : snippets) {
            if (name.endsWith(s.className() + ".java")) {
                Path file = s.file().startsWith(ROOT) ? ROOT.relativize(s.file()) : s.file();
                return file.toString().replace(File.separatorChar, '/') + ":" + (s.line() + d.getLineNumber() - 2);
            }
        }
        return name + ":" + d.getLineNumber();
    }
}
