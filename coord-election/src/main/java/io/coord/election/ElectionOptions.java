package io.coord.election;

import io.coord.CodecException;
import io.coord.ConfigurationException;
import io.coord.CoordPath;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How one {@link Election} handle takes part: who it is, what it tells observers, and how its
 * leaders hand over. Immutable; built by {@link #builder()}, which fails early.
 *
 * @param participantId   this candidate's id, shown to observers; one path segment's rules (no
 *                        {@code /}, no control characters, at most 255 characters). Uniqueness is
 *                        not enforced: two candidates with one id are still two candidates.
 *                        Default {@code host:pid}.
 * @param metadata        small string map shown to observers (an address, a version), stored as a
 *                        JSON object in the candidate's node; at most {@value #MAX_METADATA_BYTES}
 *                        bytes of JSON
 * @param handoverGrace   how long a newly elected leader waits, after the previous leader's node
 *                        is gone, before it starts acting. Default {@link Duration#ZERO}: a leader
 *                        cut off from ZooKeeper notices (SUSPENDED, at about 2/3 of its session
 *                        timeout) before the server expires its session (at the full timeout), so
 *                        no wait is needed for that case. A grace covers what that margin does not:
 *                        a session ended by the server while its client is still connected
 *                        (an administrator's kill, a server-side close), a leader process slower to
 *                        react than the margin. Fencing with the epoch is still required either way.
 * @param requeue         for {@link Election#lead}: after the task returns or fails (or the
 *                        leadership is lost), join the election again at the back of the line.
 *                        Default false: the task runs for one leadership and the registration ends.
 * @param taskStopTimeout how long closing waits for an interrupted leader task to return before it
 *                        resigns anyway (the next leader may then start while the task still runs;
 *                        its writes are refused by the fence). Default 10 s.
 * @param curatorLayout   the Curator recipe whose node layout the candidates share, so that
 *                        Curator clients on the same election take part in the same order (see
 *                        {@link CuratorLayout}). Default {@link CuratorLayout#LATCH}; choose
 *                        {@link CuratorLayout#SELECTOR} where the other clients run
 *                        {@code LeaderSelector}. All Coord candidates of one election must agree.
 */
public record ElectionOptions(String participantId, Map<String, String> metadata, Duration handoverGrace,
                              boolean requeue, Duration taskStopTimeout, CuratorLayout curatorLayout) {
    /** Largest metadata, as JSON: candidates' nodes are read by every observer on every change. */
    public static final int MAX_METADATA_BYTES = 64 * 1024;

    public ElectionOptions {
        CoordPath.validateName(participantId);
        metadata = checkMetadata(metadata);
        if (handoverGrace == null || handoverGrace.isNegative()) {
            throw new ConfigurationException("handoverGrace must be >= 0, got " + handoverGrace);
        }
        if (taskStopTimeout == null || taskStopTimeout.isNegative() || taskStopTimeout.isZero()) {
            throw new ConfigurationException("taskStopTimeout must be > 0, got " + taskStopTimeout);
        }
        if (curatorLayout == null) {
            throw new ConfigurationException("curatorLayout must be LATCH or SELECTOR, got null");
        }
    }

    /** Defaults: id {@code host:pid}, no metadata, no handover grace, no requeue, the {@code LeaderLatch} layout. */
    public static ElectionOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these options, to derive a variant; each setting may be overridden once. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.participantId = participantId;
        b.metadata = metadata;
        b.handoverGrace = handoverGrace;
        b.requeue = requeue;
        b.taskStopTimeout = taskStopTimeout;
        b.curatorLayout = curatorLayout;
        return b;
    }

    private static Map<String, String> checkMetadata(Map<String, String> metadata) {
        Objects.requireNonNull(metadata, "metadata");
        Map<String, String> copy = new LinkedHashMap<>();
        metadata.forEach((k, v) -> {
            if (k == null || v == null) {
                throw new ConfigurationException("metadata may not hold null keys or values, got " + k + "=" + v);
            }
            copy.put(k, v);
        });
        int size;
        try {
            size = io.coord.Codec.mapper().writeValueAsBytes(copy).length;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new CodecException("metadata cannot be written as JSON: " + e.getOriginalMessage(), e);
        }
        if (size > MAX_METADATA_BYTES) {
            throw new ConfigurationException("metadata is " + size + " bytes of JSON, over the limit of " + MAX_METADATA_BYTES);
        }
        return java.util.Collections.unmodifiableMap(copy);
    }

    static String defaultParticipantId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "localhost";
        }
        return host + ":" + ProcessHandle.current().pid();
    }

    /** Builds {@link ElectionOptions}; setting one option twice is an error naming it. */
    public static final class Builder {
        private String participantId;
        private Map<String, String> metadata;
        private Duration handoverGrace;
        private Boolean requeue;
        private Duration taskStopTimeout;
        private CuratorLayout curatorLayout;
        private final List<String> set = new ArrayList<>();

        private Builder() {
        }

        private void once(String name) {
            if (set.contains(name)) {
                throw new ConfigurationException("election option '" + name + "' was set twice");
            }
            set.add(name);
        }

        public Builder participantId(String value) {
            once("participantId");
            participantId = CoordPath.validateName(value);
            return this;
        }

        public Builder metadata(Map<String, String> value) {
            once("metadata");
            metadata = checkMetadata(value);
            return this;
        }

        public Builder handoverGrace(Duration value) {
            once("handoverGrace");
            if (value == null || value.isNegative()) {
                throw new ConfigurationException("handoverGrace must be >= 0, got " + value);
            }
            handoverGrace = value;
            return this;
        }

        public Builder requeue(boolean value) {
            once("requeue");
            requeue = value;
            return this;
        }

        public Builder taskStopTimeout(Duration value) {
            once("taskStopTimeout");
            if (value == null || value.isNegative() || value.isZero()) {
                throw new ConfigurationException("taskStopTimeout must be > 0, got " + value);
            }
            taskStopTimeout = value;
            return this;
        }

        /** The Curator layout the candidates share; see {@link CuratorLayout}. */
        public Builder curatorLayout(CuratorLayout value) {
            once("curatorLayout");
            if (value == null) {
                throw new ConfigurationException("curatorLayout must be LATCH or SELECTOR, got null");
            }
            curatorLayout = value;
            return this;
        }

        public ElectionOptions build() {
            return new ElectionOptions(
                    participantId == null ? defaultParticipantId() : participantId,
                    metadata == null ? Map.of() : metadata,
                    handoverGrace == null ? Duration.ZERO : handoverGrace,
                    requeue != null && requeue,
                    taskStopTimeout == null ? Duration.ofSeconds(10) : taskStopTimeout,
                    curatorLayout == null ? CuratorLayout.LATCH : curatorLayout);
        }
    }
}
