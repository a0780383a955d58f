package io.coord.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/** Where the JSON lines go, and appending them. */
final class ResultsFile {
    static final String RELATIVE = "coord-bench/target/bench/results.jsonl";

    private ResultsFile() {
    }

    /**
     * {@code <repo>/coord-bench/target/bench/results.jsonl}. The repository root is the
     * {@code coord.home} system property (the launcher sets it), else the nearest directory at or
     * above the working directory that holds {@code coord-bench/pom.xml} (so running from the root
     * or from the module directory lands in the same file), else the working directory.
     */
    static Path defaultPath() {
        return defaultPath(System.getProperty("coord.home"), Path.of("").toAbsolutePath());
    }

    static Path defaultPath(String home, Path cwd) {
        return repoRoot(home, cwd).resolve(RELATIVE);
    }

    /** The repository root as {@link #defaultPath()} finds it (where {@code --scale} writes docs/). */
    static Path repoRoot() {
        return repoRoot(System.getProperty("coord.home"), Path.of("").toAbsolutePath());
    }

    static Path repoRoot(String home, Path cwd) {
        if (home != null && !home.isBlank()) {
            return Path.of(home).toAbsolutePath();
        }
        for (Path dir = cwd; dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("coord-bench/pom.xml"))) {
                return dir;
            }
        }
        return cwd;
    }

    static void append(Path file, List<String> lines) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.write(file, lines, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("could not append benchmark results to " + file, e);
        }
    }
}
