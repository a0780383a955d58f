package io.coord;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Everything a {@link CoordClient} needs, immutable and validated. Built by {@link #builder()},
 * which fails early: a malformed value fails when it is set, a contradiction between two settings
 * fails at {@link Builder#build()} with a sentence naming both.
 *
 * @param connectString     {@code host:port[,host:port...][/chroot]}
 * @param namespace         Curator namespace (no leading or trailing {@code /}), or null for none
 * @param sessionTimeout    requested session timeout; the server may clamp it to 2–20 × tickTime,
 *                          see {@link CoordClient#negotiatedSessionTimeout()}
 * @param connectionTimeout how long {@link CoordClient#connect} waits for the first connection
 * @param requestTimeout    bound on one synchronous request ({@code zookeeper.request.timeout})
 * @param retry             backoff for retryable errors
 * @param credentials       authentication presented on every (re)connect
 * @param aclPolicy         ACLs for every node Coord creates
 * @param tls               TLS to the ensemble, or null for plaintext
 * @param authCheckPath     optional canary node read right after connecting, so wrong credentials
 *                          fail at start-up instead of on the first real operation; null for none
 * @param maxValueBytes     largest value Coord will write to one znode
 * @param metrics           where Coord's figures go
 * @param stallFraction     a process stall (GC pause, SIGSTOP) longer than this fraction of the
 *                          negotiated session timeout makes every lease UNCERTAIN until confirmed;
 *                          0 turns the monitor off
 * @param ticker            the monotonic clock, in nanoseconds, on which the client measures its own
 *                          stalls and a new lease's grace before its own-node watch:
 *                          {@link System#nanoTime()} unless a test sets another, see
 *                          {@link Builder#ticker}
 */
public record CoordSettings(String connectString, String namespace, Duration sessionTimeout,
                            Duration connectionTimeout, Duration requestTimeout, RetrySettings retry,
                            List<Credentials> credentials, AclPolicy aclPolicy, TlsSettings tls,
                            CoordPath authCheckPath, int maxValueBytes, CoordMetrics metrics,
                            double stallFraction, LongSupplier ticker) {
    /** ZooKeeper's default {@code jute.maxbuffer} is 1 048 575 bytes; leave room for the request header. */
    public static final int DEFAULT_MAX_VALUE_BYTES = 1_000_000;
    /** One third: Curator pings every third of the session timeout, so a stall this long misses a ping. */
    public static final double DEFAULT_STALL_FRACTION = 1.0 / 3;
    /** The default ticker, one instance: settings built alike stay equal. */
    private static final LongSupplier SYSTEM_TICKER = System::nanoTime;

    public CoordSettings {
        ConnectString.parse(connectString);
        if (namespace != null) {
            checkNamespace(namespace);
        }
        positive("sessionTimeout", sessionTimeout);
        positive("connectionTimeout", connectionTimeout);
        positive("requestTimeout", requestTimeout);
        Objects.requireNonNull(retry, "retry");
        credentials = List.copyOf(credentials);
        Objects.requireNonNull(aclPolicy, "aclPolicy");
        Objects.requireNonNull(metrics, "metrics");
        Objects.requireNonNull(ticker, "ticker");
        if (maxValueBytes <= 0 || maxValueBytes > 1_048_575) {
            throw new ConfigurationException("maxValueBytes must be within 1..1048575 (jute.maxbuffer), got " + maxValueBytes);
        }
        if (!(stallFraction >= 0 && stallFraction < 1)) {
            throw new ConfigurationException("stallFraction must be within [0, 1), got " + stallFraction);
        }
        if (aclPolicy.needsAuthenticatedIdentity() && credentials.isEmpty()) {
            throw new InvalidAclException("aclPolicy uses the 'auth' scheme (creator ACL) but no credentials are set:"
                    + " ZooKeeper would refuse every create with InvalidACL (no authenticated identity)");
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these settings, to derive a variant. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    private static void positive(String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new ConfigurationException(name + " must be > 0, got " + value);
        }
        if (value.toMillis() > Integer.MAX_VALUE) {
            throw new ConfigurationException(name + " " + value + " is too large");
        }
    }

    private static void checkNamespace(String namespace) {
        if (namespace.isEmpty() || namespace.startsWith("/") || namespace.endsWith("/")) {
            throw new ConfigurationException("namespace " + CoordPath.quote(namespace)
                    + " must be non-empty and must not start or end with '/' (Curator prefixes it with '/')");
        }
        try {
            CoordPath.of("/" + namespace);
        } catch (InvalidPathException e) {
            throw new ConfigurationException("namespace " + CoordPath.quote(namespace) + " is not a valid path: " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "CoordSettings[connectString=" + connectString + ", namespace=" + namespace + ", sessionTimeout=" + sessionTimeout
                + ", connectionTimeout=" + connectionTimeout + ", requestTimeout=" + requestTimeout + ", credentials=" + credentials
                + ", tls=" + tls + "]";
    }

    /**
     * Builds {@link CoordSettings}. Each setting may be set once; setting it twice is an error
     * naming it, so one piece of code cannot silently override another's choice.
     */
    public static final class Builder {
        private String connectString;
        private String namespace;
        private Duration sessionTimeout;
        private Duration connectionTimeout;
        private Duration requestTimeout;
        private RetrySettings retry;
        private List<Credentials> credentials = new ArrayList<>();
        private AclPolicy aclPolicy;
        private TlsSettings tls;
        private CoordPath authCheckPath;
        private Integer maxValueBytes;
        private CoordMetrics metrics;
        private Double stallFraction;
        private LongSupplier ticker;
        private final List<String> set = new ArrayList<>();

        private Builder() {
        }

        private Builder(CoordSettings s) {
            connectString = s.connectString;
            namespace = s.namespace;
            sessionTimeout = s.sessionTimeout;
            connectionTimeout = s.connectionTimeout;
            // equal to the session timeout means it was derived from it: derive again
            requestTimeout = s.requestTimeout.equals(s.sessionTimeout) ? null : s.requestTimeout;
            retry = s.retry;
            credentials = new ArrayList<>(s.credentials);
            aclPolicy = s.aclPolicy;
            tls = s.tls;
            authCheckPath = s.authCheckPath;
            maxValueBytes = s.maxValueBytes;
            metrics = s.metrics;
            stallFraction = s.stallFraction;
            ticker = s.ticker;
            // a derived builder may override anything once more
        }

        private void once(String name) {
            if (set.contains(name)) {
                throw new ConfigurationException("setting '" + name + "' was set twice");
            }
            set.add(name);
        }

        public Builder connectString(String value) {
            once("connectString");
            ConnectString.parse(value);
            connectString = value;
            return this;
        }

        public Builder namespace(String value) {
            once("namespace");
            checkNamespace(value);
            namespace = value;
            return this;
        }

        public Builder sessionTimeout(Duration value) {
            once("sessionTimeout");
            positive("sessionTimeout", value);
            sessionTimeout = value;
            return this;
        }

        public Builder connectionTimeout(Duration value) {
            once("connectionTimeout");
            positive("connectionTimeout", value);
            connectionTimeout = value;
            return this;
        }

        public Builder requestTimeout(Duration value) {
            once("requestTimeout");
            positive("requestTimeout", value);
            requestTimeout = value;
            return this;
        }

        public Builder retry(RetrySettings value) {
            once("retry");
            retry = Objects.requireNonNull(value, "retry");
            return this;
        }

        /** Adds credentials; may be called for several identities. */
        public Builder credentials(Credentials value) {
            credentials.add(Objects.requireNonNull(value, "credentials"));
            return this;
        }

        public Builder aclPolicy(AclPolicy value) {
            once("aclPolicy");
            aclPolicy = Objects.requireNonNull(value, "aclPolicy");
            return this;
        }

        public Builder tls(TlsSettings value) {
            once("tls");
            tls = Objects.requireNonNull(value, "tls");
            return this;
        }

        public Builder authCheckPath(CoordPath value) {
            once("authCheckPath");
            authCheckPath = Objects.requireNonNull(value, "authCheckPath");
            return this;
        }

        public Builder maxValueBytes(int value) {
            once("maxValueBytes");
            maxValueBytes = value;
            return this;
        }

        public Builder metrics(CoordMetrics value) {
            once("metrics");
            metrics = Objects.requireNonNull(value, "metrics");
            return this;
        }

        public Builder stallFraction(double value) {
            once("stallFraction");
            if (!(value >= 0 && value < 1)) {
                throw new ConfigurationException("stallFraction must be within [0, 1), got " + value);
            }
            stallFraction = value;
            return this;
        }

        /**
         * For tests: the monotonic clock (nanoseconds, {@link System#nanoTime()}'s meaning: only
         * differences count, never backwards) on which the client measures its own stalls. A clock
         * that jumps forward by more than {@code stallFraction} of the negotiated session timeout
         * makes the client see a stall, as a long GC pause would, without stopping the JVM. The
         * same clock says when a new lease has outlived the short grace after which it sends its
         * own-node watch. Leave it unset outside tests.
         */
        public Builder ticker(LongSupplier value) {
            once("ticker");
            ticker = Objects.requireNonNull(value, "ticker");
            return this;
        }

        public CoordSettings build() {
            if (connectString == null) {
                throw new ConfigurationException("connectString is required (host:port[,host:port...][/chroot])");
            }
            Duration session = sessionTimeout == null ? Duration.ofSeconds(30) : sessionTimeout;
            Duration connection = connectionTimeout == null ? Duration.ofSeconds(15) : connectionTimeout;
            // A request may not wait longer than the session lives: after that its answer is meaningless.
            Duration request = requestTimeout == null ? session : requestTimeout;
            if (requestTimeout != null && requestTimeout.compareTo(session) > 0) {
                throw new ConfigurationException("requestTimeout " + requestTimeout + " is longer than sessionTimeout "
                        + session + ": a request could outlive the session it belongs to");
            }
            return new CoordSettings(connectString, namespace, session, connection, request,
                    retry == null ? RetrySettings.DEFAULT : retry, credentials,
                    aclPolicy == null ? AclPolicy.open() : aclPolicy, tls, authCheckPath,
                    maxValueBytes == null ? DEFAULT_MAX_VALUE_BYTES : maxValueBytes,
                    metrics == null ? CoordMetrics.noop() : metrics,
                    stallFraction == null ? DEFAULT_STALL_FRACTION : stallFraction,
                    ticker == null ? SYSTEM_TICKER : ticker);
        }
    }
}
