package io.coord.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.coord.Codec;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last value a reader applied, kept in a local file so that a service can start while the
 * ensemble is unreachable. One file per reader: {@code {dir}/{app}/{key}.json} (a whole-app key:
 * {@code {dir}/{app}/.app.json}), replaced atomically (write a temporary file, then rename), so a
 * crash mid-write leaves the previous snapshot. The value is checked again on load, as the key's
 * type and with its validator: a snapshot the current code cannot use is ignored, with a warning.
 */
final class LocalSnapshot<T> {
    private static final Logger LOG = LoggerFactory.getLogger(LocalSnapshot.class);
    private static final int FORMAT = 1;

    private final ConfigKey<T> key;
    private final Path file;
    private final int limit;

    LocalSnapshot(ConfigKey<T> key, Path dir, int limit) {
        this.key = key;
        this.file = dir.resolve(key.app()).resolve(key.isWholeApp() ? ".app.json" : key.key() + ".json");
        this.limit = limit;
    }

    Path file() {
        return file;
    }

    /** The snapshot's value, as origin {@link Versioned.Origin#SNAPSHOT}; empty if there is none or it cannot be used. */
    Optional<Versioned<T>> load() {
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try {
            byte[] bytes = Files.readAllBytes(file);
            JsonNode tree = Codec.json(JsonNode.class).withLimit(limit + 4096).decode(key.path(), bytes);
            if (tree.path("format").asInt() != FORMAT || !key.path().value().equals(tree.path("path").asText())) {
                LOG.warn("ignoring config snapshot {}: it is not a format-{} snapshot of {}", file, FORMAT, key.path());
                return Optional.empty();
            }
            byte[] value = Codec.mapper().writeValueAsBytes(tree.get("value"));
            T decoded = key.codec(limit).decode(key.path(), value);
            key.validate(key.path().value(), decoded);
            return Optional.of(new Versioned<>(decoded, Math.max(0, tree.path("version").asLong()),
                    Math.max(0, tree.path("revision").asLong()), Instant.parse(tree.path("modified").asText()),
                    Versioned.Origin.SNAPSHOT));
        } catch (IOException | RuntimeException e) {
            LOG.warn("ignoring config snapshot {}: {}", file, e.getMessage());
            return Optional.empty();
        }
    }

    /** Replaces the snapshot with {@code current}; failures are logged (a snapshot is a convenience, not the truth). */
    void save(Versioned<T> current) {
        try {
            ObjectNode tree = Codec.mapper().createObjectNode();
            tree.put("format", FORMAT);
            tree.put("path", key.path().value());
            tree.put("version", current.version());
            tree.put("revision", current.revision());
            tree.put("modified", current.modified().toString());
            tree.put("origin", current.origin().name());
            tree.set("value", Codec.mapper().valueToTree(current.value()));
            Files.createDirectories(file.getParent());
            Path tmp = Files.createTempFile(file.getParent(), "." + file.getFileName(), ".tmp");
            try {
                Files.write(tmp, Codec.mapper().writerWithDefaultPrettyPrinter().writeValueAsBytes(tree));
                try {
                    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("could not write config snapshot {}: {}", file, e.toString());
        }
    }
}
