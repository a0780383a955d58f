package io.coord.config;

import com.fasterxml.jackson.databind.JsonNode;
import io.coord.Codec;
import io.coord.CodecException;
import io.coord.CoordPath;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * Where configuration lives in ZooKeeper, in one place:
 * <pre>
 * /config/{app}/{key}                           the released value (JSON); znode version = config version
 * /config/{app}/.history/{key}/v-0000000007     the last K published values, named by version
 * /config/{app}/.canary/{key}                   a canary: {"percent": 10.0, "value": {...}}
 * {reportsRoot}/{app}/{key}/{instanceId}        ephemeral: what that instance applied
 * </pre>
 */
final class ConfigLayout {
    static final CoordPath ROOT = CoordPath.of("/config");
    static final String HISTORY = ".history";
    static final String CANARY = ".canary";
    static final String HISTORY_PREFIX = "v-";
    private static final Codec<JsonNode> ENVELOPE = Codec.json(JsonNode.class).withLimit(ConfigOptions.MAX_VALUE_BYTES_LIMIT + 1024);

    private ConfigLayout() {
    }

    static CoordPath app(String app) {
        return ROOT.child(app);
    }

    static CoordPath key(String app, String key) {
        return app(app).child(key);
    }

    static CoordPath historyDir(String app, String key) {
        return app(app).child(HISTORY).child(key);
    }

    static CoordPath historyNode(String app, String key, long version) {
        return historyDir(app, key).child(historyName(version));
    }

    static String historyName(long version) {
        return HISTORY_PREFIX + String.format(Locale.ROOT, "%010d", version);
    }

    /** The version a history node is named for, or empty for a name that is not one of ours. */
    static OptionalLong historyVersion(String name) {
        if (!name.startsWith(HISTORY_PREFIX) || name.length() != HISTORY_PREFIX.length() + 10) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(name.substring(HISTORY_PREFIX.length())));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /** History node names sorted by version, oldest first; foreign names dropped. */
    static List<String> sortedHistory(List<String> children) {
        return children.stream().filter(n -> historyVersion(n).isPresent())
                .sorted(Comparator.comparingLong(n -> historyVersion(n).getAsLong())).toList();
    }

    static CoordPath canaryDir(String app) {
        return app(app).child(CANARY);
    }

    static CoordPath canary(String app, String key) {
        return canaryDir(app).child(key);
    }

    static CoordPath reports(CoordPath root, String app, String key) {
        return root.child(app).child(key);
    }

    static byte[] encodeReport(ConfigStore.Report report) {
        com.fasterxml.jackson.databind.node.ObjectNode o = Codec.mapper().createObjectNode();
        o.put("instance", report.instance());
        o.put("version", report.version());
        o.put("revision", report.revision());
        o.put("canary", report.canary());
        o.put("stale", report.stale());
        o.put("appliedAt", report.appliedAt().toString());
        try {
            return Codec.mapper().writeValueAsBytes(o);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("a report always serializes", e);
        }
    }

    /** Reads a report node; a {@link CodecException} names the path if it is not one. */
    static ConfigStore.Report decodeReport(CoordPath path, byte[] data) {
        JsonNode o = ENVELOPE.decode(path, data);
        try {
            return new ConfigStore.Report(o.path("instance").asText(path.name()), o.path("version").asLong(Versioned.NO_VERSION),
                    o.path("revision").asLong(), o.path("canary").asBoolean(), o.path("stale").asBoolean(),
                    java.time.Instant.parse(o.path("appliedAt").asText()));
        } catch (RuntimeException e) {
            throw new CodecException("report node " + path + " is not a config report: " + e.getMessage(), e);
        }
    }

    /** A canary node's content: the percentage of instances that apply it and the value's JSON. */
    record Envelope(double percent, byte[] value) {
        Envelope {
            CanaryRule.checkPercent(percent);
        }

        /** {@code {"percent":10.0,"value":<value>}}, the value's bytes as they are (already checked JSON). */
        byte[] encode() {
            ByteArrayOutputStream out = new ByteArrayOutputStream(value.length + 32);
            out.writeBytes(("{\"percent\":" + percent + ",\"value\":").getBytes(StandardCharsets.UTF_8));
            out.writeBytes(value);
            out.write('}');
            return out.toByteArray();
        }

        /** Parses a canary node's data strictly; a {@link CodecException} names the path and the problem. */
        static Envelope decode(CoordPath path, byte[] data) {
            JsonNode tree = ENVELOPE.decode(path, data);
            JsonNode percent = tree.get("percent");
            JsonNode value = tree.get("value");
            if (!tree.isObject() || tree.size() != 2 || percent == null || !percent.isNumber() || value == null) {
                throw new CodecException("canary node " + path + " must be {\"percent\": <number>, \"value\": <json>}");
            }
            try {
                return new Envelope(percent.doubleValue(), Codec.mapper().writeValueAsBytes(value));
            } catch (IllegalArgumentException e) {
                throw new CodecException("canary node " + path + ": " + e.getMessage(), e);
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new CodecException("canary node " + path + ": value cannot be re-serialized: " + e.getOriginalMessage(), e);
            }
        }
    }
}
