package io.coord.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.coord.Codec;
import io.coord.CodecException;
import io.coord.CoordException;
import io.coord.ValueTooLargeException;
import io.coord.config.NodeTrack.Content;
import io.coord.config.NodeTrack.Kind;
import io.coord.config.VersionRule.Decision;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.data.Stat;

/**
 * The state of one reader: the watched nodes and the value in effect, moved only by reads, on the
 * reader's config thread. Applies {@link VersionRule} to each read, checks new content the way it
 * would be used (decoded as the key's type with the other keys in effect, then validated) and
 * keeps the last good content of each node when new content fails.
 */
final class ConfigState<T> {
    /** What a read changed: a new value in effect, a rejection, both or neither. */
    record Outcome<T>(Versioned<T> applied, ConfigRejection rejection) {
        static final Outcome<Object> NOTHING = new Outcome<>(null, null);

        @SuppressWarnings("unchecked")
        static <T> Outcome<T> nothing() {
            return (Outcome<T>) NOTHING;
        }
    }

    private final ConfigKey<T> key;
    private final String instanceId;
    private final Codec<T> codec;
    private final Codec<JsonNode> trees;
    private final Map<String, NodeTrack> byPath = new LinkedHashMap<>();
    private final Map<String, NodeTrack[]> byKey = new LinkedHashMap<>();
    private List<String> signature = List.of();
    /** The contents check() last assembled and the value they gave, so a good update is decoded once. */
    private Map<String, Content> checkedContents;
    private T checkedValue;
    private Versioned<T> current;

    ConfigState(ConfigKey<T> key, ConfigOptions options) {
        this.key = key;
        this.instanceId = options.instanceId();
        this.codec = key.codec(options.maxValueBytes());
        this.trees = Codec.json(JsonNode.class).withLimit(options.maxValueBytes());
        for (String k : key.keys()) {
            NodeTrack stable = new NodeTrack(k, Kind.STABLE, ConfigLayout.key(key.app(), k));
            NodeTrack canary = new NodeTrack(k, Kind.CANARY, ConfigLayout.canary(key.app(), k));
            byKey.put(k, new NodeTrack[] {stable, canary});
            byPath.put(stable.path.value(), stable);
            byPath.put(canary.path.value(), canary);
        }
    }

    List<NodeTrack> tracks() {
        return List.copyOf(byPath.values());
    }

    NodeTrack track(String path) {
        return byPath.get(path);
    }

    /** The value in effect from live reads (or the default), or null if there is none yet. */
    Versioned<T> current() {
        return current;
    }

    /** Whether every node has been read live at least once since the last {@link #forgetReads()}. */
    boolean allRead() {
        return byPath.values().stream().allMatch(t -> t.readOnce);
    }

    /** A new session or reconnect: every node must be read again before the state counts as current. */
    void forgetReads() {
        byPath.values().forEach(t -> t.readOnce = false);
    }

    /** Whether this instance applies the canary of {@code key}, if one is in effect for it. */
    boolean inCanary() {
        return byKey.values().stream().anyMatch(t -> canaryInEffect(t[1].good));
    }

    /** A read found the node of {@code track} with {@code data}. */
    Outcome<T> onPresent(NodeTrack track, byte[] data, Stat stat) {
        track.readOnce = true;
        long revision = stat.getMzxid();
        Decision decision = VersionRule.present(track.seen, revision);
        if (decision != Decision.APPLY) {
            return recompute();
        }
        track.seen = track.seen.afterPresent(revision);
        Content content;
        try {
            content = content(track, data, stat);
            check(track, content);
        } catch (CoordException e) {
            return new Outcome<>(null, rejection(track, stat.getVersion(), revision, e));
        }
        track.good = content;
        return recompute();
    }

    /** A read found the node of {@code track} absent; {@code parentPzxid} as in {@link VersionRule#absent}. */
    Outcome<T> onAbsent(NodeTrack track, long parentPzxid) {
        track.readOnce = true;
        Decision decision = VersionRule.absent(track.seen, parentPzxid);
        if (decision != Decision.APPLY) {
            return recompute();
        }
        track.seen = track.seen.afterAbsent(parentPzxid);
        if (track.good != null) {
            try {
                check(track, null);
            } catch (CoordException e) {
                return new Outcome<>(null, rejection(track, Versioned.NO_VERSION, track.seen.maxRevision(),
                        new CoordException("deleting " + track.path + " would leave " + key.path() + " invalid: " + e.getMessage(), e)));
            }
        }
        track.good = null;
        return recompute();
    }

    private Content content(NodeTrack track, byte[] data, Stat stat) {
        Instant modified = Instant.ofEpochMilli(stat.getMtime());
        if (track.kind == Kind.CANARY) {
            ConfigLayout.Envelope envelope = ConfigLayout.Envelope.decode(track.path, data);
            return new Content(track.path, envelope.value(), stat.getVersion(), stat.getMzxid(), modified, envelope.percent(), Kind.CANARY);
        }
        return new Content(track.path, data, stat.getVersion(), stat.getMzxid(), modified, 100, Kind.STABLE);
    }

    /**
     * Checks {@code candidate} (null: the node is gone) the way it would be used: the value of its
     * key as if it were in effect, with every other key as it is. A canary this instance is not
     * in is never used, so it is not checked.
     */
    private void check(NodeTrack track, Content candidate) {
        if (candidate != null && candidate.kind() == Kind.CANARY && !canaryInEffect(candidate)) {
            return;
        }
        Map<String, Content> contents = effectiveContents();
        if (candidate == null && track.kind == Kind.CANARY) {
            NodeTrack stable = byKey.get(track.key)[0];
            contents.put(track.key, stable.good);
        } else {
            contents.put(track.key, candidate);
        }
        T value = assemble(contents);
        checkedContents = contents;
        checkedValue = value;
    }

    private boolean canaryInEffect(Content canary) {
        return canary != null && CanaryRule.inCanary(instanceId, canary.percent());
    }

    private Map<String, Content> effectiveContents() {
        Map<String, Content> out = new HashMap<>();
        byKey.forEach((k, t) -> out.put(k, canaryInEffect(t[1].good) ? t[1].good : t[0].good));
        return out;
    }

    /** The value for these contents, decoded and validated; null if nothing is present and there is no default. */
    private T assemble(Map<String, Content> contents) {
        T value;
        if (!key.isWholeApp()) {
            Content c = contents.get(key.key());
            if (c == null) {
                return key.defaultValue();
            }
            value = codec.decode(c.path(), c.bytes());
        } else {
            if (contents.values().stream().allMatch(java.util.Objects::isNull) && key.defaultValue() == null) {
                return null;
            }
            ObjectNode tree = key.defaultValue() == null ? Codec.mapper().createObjectNode()
                    : Codec.mapper().valueToTree(key.defaultValue());
            contents.forEach((k, c) -> {
                if (c != null) {
                    tree.set(k, trees.decode(c.path(), c.bytes()));
                }
            });
            try {
                value = Codec.mapper().treeToValue(tree, key.type());
            } catch (JsonProcessingException | IllegalArgumentException e) {
                throw new CodecException("keys of " + key.path() + " do not make a " + key.type().getName() + ": "
                        + (e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage()), e);
            }
        }
        key.validate(key.path().value(), value);
        return value;
    }

    /** Recomputes the value in effect; an outcome with it if it changed. */
    private Outcome<T> recompute() {
        Map<String, Content> contents = effectiveContents();
        List<String> sig = new ArrayList<>();
        Content newest = null;
        boolean anyCanary = false;
        for (String k : byKey.keySet()) {
            Content c = contents.get(k);
            if (c != null) {
                sig.add(k + "@" + c.kind() + ":" + c.revision());
                anyCanary |= c.kind() == Kind.CANARY;
                if (newest == null || c.revision() > newest.revision()) {
                    newest = c;
                }
            }
        }
        if (sig.equals(signature) && current != null) {
            return Outcome.nothing();
        }
        T value;
        try {
            // every content in it passed check() already; usually check() just assembled exactly these
            value = contents.equals(checkedContents) ? checkedValue : assemble(contents);
        } catch (CoordException e) {
            return Outcome.nothing(); // cannot happen unless a validator is not a pure function: keep what we have
        }
        signature = sig;
        if (value == null) {
            current = null;
            return Outcome.nothing();
        }
        current = newest == null ? Versioned.ofDefault(value)
                : new Versioned<>(value, newest.version(), newest.revision(), newest.modified(),
                        anyCanary ? Versioned.Origin.CANARY : Versioned.Origin.LIVE);
        return new Outcome<>(current, null);
    }

    private static ConfigRejection rejection(NodeTrack track, long version, long revision, CoordException e) {
        String reason = e instanceof ConfigValidationException ? "validation"
                : e instanceof ValueTooLargeException ? "too-large" : "parse";
        return new ConfigRejection(track.path.value(), version, revision, reason, e.getMessage());
    }

    /** The content in effect for each key, for the local snapshot. */
    Map<String, Content> contentsInEffect() {
        return effectiveContents();
    }
}
