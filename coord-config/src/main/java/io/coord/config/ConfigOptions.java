package io.coord.config;

import io.coord.ConfigurationException;
import io.coord.CoordPath;
import io.coord.internal.Payloads;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * How readers and writers of configuration behave. Immutable; built by {@link #builder()}, where
 * each setting may be set once and a bad value fails when it is set.
 *
 * @param instanceId    this process's stable name: it decides canary membership (a stable hash
 *                      of it, so the same id is in or out of a canary across restarts) and names
 *                      its report node. Default {@code <hostname>-<pid>}, which changes on restart:
 *                      give a stable one (a pod name, a host name) for stable canaries
 * @param reportApplied whether readers publish what they applied in an ephemeral node
 *                      {@code {reportsRoot}/{app}/{key}/{instanceId}} (see {@link ConfigStore#who})
 * @param reportsRoot   where reports go. Not under {@code /config}: with the usual ACL policy only
 *                      the config admin may write there, and every reader must be able to report
 * @param snapshotDir   where readers keep the last applied value, to start from it when the
 *                      ensemble cannot be reached; null for no snapshot
 * @param fallbackAfter how long {@link LiveConfig#awaitInitialized} waits for a live read before
 *                      it falls back to the snapshot (it falls back at once when connecting or the
 *                      first read fails)
 * @param historyDepth  how many published versions of a key writers keep under {@code .history}
 * @param maxValueBytes largest value writers publish and readers accept. Every publish writes the
 *                      value twice (the key and its history entry) in one transaction, so the
 *                      limit is at most {@value #MAX_VALUE_BYTES_LIMIT} bytes
 * @param clock         the clock for propagation delays and report times
 */
public record ConfigOptions(String instanceId, boolean reportApplied, CoordPath reportsRoot, Path snapshotDir,
                            Duration fallbackAfter, int historyDepth, int maxValueBytes, Clock clock) {
    public static final int DEFAULT_HISTORY_DEPTH = 10;
    public static final int MAX_HISTORY_DEPTH = 1000;
    /** 500 KiB: room for two copies, one transaction header and the history deletes within jute.maxbuffer. */
    public static final int DEFAULT_MAX_VALUE_BYTES = 500 * 1024;
    public static final int MAX_VALUE_BYTES_LIMIT = (Payloads.TRANSACTION_LIMIT - 16 * 1024) / 2;
    public static final CoordPath DEFAULT_REPORTS_ROOT = CoordPath.of("/config-reports");
    public static final Duration DEFAULT_FALLBACK_AFTER = Duration.ofSeconds(3);

    public ConfigOptions {
        CoordPath.validateName(instanceId);
        Objects.requireNonNull(reportsRoot, "reportsRoot");
        if (reportsRoot.startsWith(ConfigLayout.ROOT)) {
            throw new ConfigurationException("reportsRoot " + reportsRoot + " is under " + ConfigLayout.ROOT
                    + ": readers could not write their reports where only the config admin may write");
        }
        if (fallbackAfter == null || fallbackAfter.isNegative()) {
            throw new ConfigurationException("fallbackAfter must be >= 0, got " + fallbackAfter);
        }
        if (historyDepth < 1 || historyDepth > MAX_HISTORY_DEPTH) {
            throw new ConfigurationException("historyDepth must be within 1.." + MAX_HISTORY_DEPTH + ", got " + historyDepth);
        }
        if (maxValueBytes < 1 || maxValueBytes > MAX_VALUE_BYTES_LIMIT) {
            throw new ConfigurationException("maxValueBytes must be within 1.." + MAX_VALUE_BYTES_LIMIT
                    + " (two copies go into one transaction under jute.maxbuffer), got " + maxValueBytes);
        }
        Objects.requireNonNull(clock, "clock");
    }

    /** Every default. */
    public static ConfigOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder(null);
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** {@code <hostname>-<pid>}, with characters a node name may not hold replaced. */
    static String defaultInstanceId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "unknown-host";
        }
        String pid = ManagementFactory.getRuntimeMXBean().getName().split("@")[0];
        return (host + "-" + pid).replaceAll("[^A-Za-z0-9._:-]", "_");
    }

    /** Builds {@link ConfigOptions}; each setting once. A derived builder ({@link #toBuilder()}) may set each once more. */
    public static final class Builder {
        private String instanceId;
        private Boolean reportApplied;
        private CoordPath reportsRoot;
        private Path snapshotDir;
        private Duration fallbackAfter;
        private Integer historyDepth;
        private Integer maxValueBytes;
        private Clock clock;
        private final Set<String> set = new HashSet<>();

        private Builder(ConfigOptions from) {
            if (from != null) {
                instanceId = from.instanceId;
                reportApplied = from.reportApplied;
                reportsRoot = from.reportsRoot;
                snapshotDir = from.snapshotDir;
                fallbackAfter = from.fallbackAfter;
                historyDepth = from.historyDepth;
                maxValueBytes = from.maxValueBytes;
                clock = from.clock;
            }
        }

        private void once(String name) {
            if (!set.add(name)) {
                throw new ConfigurationException("config option '" + name + "' was set twice");
            }
        }

        public Builder instanceId(String value) {
            once("instanceId");
            instanceId = CoordPath.validateName(value);
            return this;
        }

        public Builder reportApplied(boolean value) {
            once("reportApplied");
            reportApplied = value;
            return this;
        }

        public Builder reportsRoot(String value) {
            once("reportsRoot");
            reportsRoot = CoordPath.of(value);
            return this;
        }

        public Builder snapshotDir(Path value) {
            once("snapshotDir");
            snapshotDir = Objects.requireNonNull(value, "snapshotDir");
            return this;
        }

        public Builder fallbackAfter(Duration value) {
            once("fallbackAfter");
            fallbackAfter = Objects.requireNonNull(value, "fallbackAfter");
            return this;
        }

        public Builder historyDepth(int value) {
            once("historyDepth");
            historyDepth = value;
            return this;
        }

        public Builder maxValueBytes(int value) {
            once("maxValueBytes");
            maxValueBytes = value;
            return this;
        }

        public Builder clock(Clock value) {
            once("clock");
            clock = Objects.requireNonNull(value, "clock");
            return this;
        }

        public ConfigOptions build() {
            return new ConfigOptions(instanceId == null ? defaultInstanceId() : instanceId,
                    reportApplied == null || reportApplied,
                    reportsRoot == null ? DEFAULT_REPORTS_ROOT : reportsRoot,
                    snapshotDir,
                    fallbackAfter == null ? DEFAULT_FALLBACK_AFTER : fallbackAfter,
                    historyDepth == null ? DEFAULT_HISTORY_DEPTH : historyDepth,
                    maxValueBytes == null ? DEFAULT_MAX_VALUE_BYTES : maxValueBytes,
                    clock == null ? Clock.systemUTC() : clock);
        }
    }
}
