package io.coord.spring.boot;

import io.coord.AclEntry;
import io.coord.AclPolicy;
import io.coord.ConfigurationException;
import io.coord.CoordMetrics;
import io.coord.CoordSettings;
import io.coord.Credentials;
import io.coord.TlsSettings;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.Consumer;
import org.apache.zookeeper.ZooDefs.Perms;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code coord.*} properties the auto-configured {@link io.coord.CoordClient} is built from.
 * Bound as given; checked when the client is built ({@link #toSettings}), where each bad value
 * fails startup with an {@link InvalidCoordPropertyException} naming its property. The checks
 * themselves are {@link CoordSettings}' own, so a Spring application and a plain one refuse the
 * same values.
 *
 * @param connectString     {@code coord.connect-string}: {@code host:port[,host:port...][/chroot]}, required
 * @param namespace         {@code coord.namespace}: Curator namespace, no leading or trailing {@code /}
 * @param sessionTimeout    {@code coord.session-timeout}: requested session timeout (default 30s); startup
 *                          fails if the server grants another value (it clamps to 2–20 × tickTime)
 * @param connectionTimeout {@code coord.connection-timeout}: wait for the first connection (default 15s)
 * @param digest            {@code coord.digest.user} / {@code coord.digest.password}: digest credentials
 * @param aclPolicy         {@code coord.acl-policy}: {@code open} (default), {@code creator} or
 *                          {@code creator-world-read}; the last two need digest credentials
 * @param tls               {@code coord.tls.*}: TLS to the ensemble
 */
@ConfigurationProperties("coord")
public record CoordProperties(String connectString, String namespace, Duration sessionTimeout,
                              Duration connectionTimeout, Digest digest, String aclPolicy, Tls tls) {

    /** Digest credentials presented on every (re)connect. The password is never shown by {@link #toString()}. */
    public record Digest(String user, String password) {
        @Override
        public String toString() {
            return "Digest[user=" + user + ", password=****]";
        }
    }

    /**
     * TLS to the ensemble (off unless {@code coord.tls.enabled=true}).
     *
     * @param trustStore           {@code coord.tls.trust-store}: path of the truststore, required when enabled
     * @param keyStore             {@code coord.tls.key-store}: client certificate, for mutual TLS
     * @param storeType            {@code coord.tls.store-type}: PKCS12 unless set
     * @param hostnameVerification {@code coord.tls.hostname-verification}: true unless set
     */
    public record Tls(boolean enabled, String trustStore, String trustStorePassword, String keyStore,
                      String keyStorePassword, @DefaultValue("PKCS12") String storeType,
                      @DefaultValue("true") boolean hostnameVerification) {
        @Override
        public String toString() {
            return "Tls[enabled=" + enabled + ", trustStore=" + trustStore + ", keyStore=" + keyStore
                    + ", storeType=" + storeType + ", hostnameVerification=" + hostnameVerification + ", passwords=****]";
        }
    }

    /** The ACL policies {@code coord.acl-policy} may name. */
    enum AclPolicyName {
        /** Everyone may do everything (ZooKeeper's OPEN_ACL_UNSAFE). */
        OPEN("open"),
        /** Only the authenticated identity that created a node may touch it. */
        CREATOR("creator"),
        /** The creator may do everything, everyone else may read. */
        CREATOR_WORLD_READ("creator-world-read");

        final String property;

        AclPolicyName(String property) {
            this.property = property;
        }

        static AclPolicyName parse(String value) {
            String v = value.strip().toLowerCase(Locale.ROOT);
            return Arrays.stream(values()).filter(n -> n.property.equals(v)).findFirst()
                    .orElseThrow(() -> new InvalidCoordPropertyException("coord.acl-policy", value,
                            "unknown ACL policy; one of " + Arrays.stream(values()).map(n -> n.property).toList()));
        }

        AclPolicy policy() {
            return switch (this) {
                case OPEN -> AclPolicy.open();
                case CREATOR -> AclPolicy.builder().defaultAcl(AclEntry.creator(Perms.ALL)).build();
                case CREATOR_WORLD_READ -> AclPolicy.builder()
                        .defaultAcl(AclEntry.creator(Perms.ALL), AclEntry.anyone(Perms.READ)).build();
            };
        }
    }

    /**
     * The client's settings from these properties, reporting to {@code metrics}. Each value goes
     * through the builder on its own, so a refusal names the one property that caused it.
     */
    CoordSettings toSettings(CoordMetrics metrics) {
        CoordSettings.Builder b = CoordSettings.builder().metrics(metrics);
        if (connectString == null || connectString.isBlank()) {
            throw new InvalidCoordPropertyException("coord.connect-string", connectString,
                    "required: the ZooKeeper ensemble as host:port[,host:port...][/chroot]");
        }
        set("coord.connect-string", connectString, b::connectString);
        if (namespace != null) {
            set("coord.namespace", namespace, b::namespace);
        }
        if (sessionTimeout != null) {
            set("coord.session-timeout", sessionTimeout, b::sessionTimeout);
        }
        if (connectionTimeout != null) {
            set("coord.connection-timeout", connectionTimeout, b::connectionTimeout);
        }
        boolean hasDigest = digest != null && (digest.user() != null || digest.password() != null);
        if (hasDigest) {
            if (digest.password() == null) {
                throw new InvalidCoordPropertyException("coord.digest.password", null, "required when coord.digest.user is set");
            }
            set("coord.digest.user", digest.user() == null ? "" : digest.user(),
                    user -> b.credentials(Credentials.digest(user, digest.password())));
        }
        if (aclPolicy != null) {
            AclPolicyName name = AclPolicyName.parse(aclPolicy);
            if (name != AclPolicyName.OPEN && !hasDigest) {
                throw new InvalidCoordPropertyException("coord.acl-policy", aclPolicy,
                        "needs an authenticated identity: set coord.digest.user and coord.digest.password"
                                + " (ZooKeeper would refuse every create with InvalidACL)");
            }
            b.aclPolicy(name.policy());
        }
        if (tls != null && tls.enabled()) {
            Path trustStore = readable("coord.tls.trust-store", tls.trustStore());
            Path keyStore = tls.keyStore() == null ? null : readable("coord.tls.key-store", tls.keyStore());
            set("coord.tls", tls, t -> b.tls(new TlsSettings(keyStore, t.keyStorePassword(), trustStore,
                    t.trustStorePassword(), t.storeType(), t.hostnameVerification())));
        }
        try {
            return b.build();
        } catch (ConfigurationException e) {
            // Only a contradiction between settings is left (the values passed one by one).
            throw new InvalidCoordPropertyException("coord", null, e.getMessage(), e);
        }
    }

    private static Path readable(String property, String value) {
        if (value == null || value.isBlank()) {
            throw new InvalidCoordPropertyException(property, value, "required when coord.tls.enabled=true");
        }
        try {
            Path path = Path.of(value);
            if (!Files.isReadable(path)) {
                throw new InvalidCoordPropertyException(property, value, "the file does not exist or is not readable");
            }
            return path;
        } catch (InvalidPathException e) {
            throw new InvalidCoordPropertyException(property, value, "not a path: " + e.getMessage(), e);
        }
    }

    /** Applies one value; Coord's refusal becomes a refusal of the property that carried it. */
    private static <T> void set(String property, T value, Consumer<T> setter) {
        try {
            setter.accept(value);
        } catch (ConfigurationException | IllegalArgumentException e) {
            throw new InvalidCoordPropertyException(property, value, e.getMessage(), e);
        }
    }
}
