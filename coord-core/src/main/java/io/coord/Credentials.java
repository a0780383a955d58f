package io.coord;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Authentication a client presents to ZooKeeper ({@code addAuthInfo}). Given to Curator's builder,
 * so it is re-applied to every new ZooKeeper handle and survives session expiry.
 *
 * <p>{@link #toString()} never shows the secret: settings are logged, secrets are not.
 */
public record Credentials(String scheme, String identity, String secret) {
    public Credentials {
        Objects.requireNonNull(scheme, "scheme");
        Objects.requireNonNull(identity, "identity");
        Objects.requireNonNull(secret, "secret");
        if (scheme.isBlank()) {
            throw new ConfigurationException("credentials scheme is blank");
        }
        if (scheme.equals("digest") && (identity.isEmpty() || identity.contains(":"))) {
            throw new ConfigurationException("digest user name " + CoordPath.quote(identity)
                    + " must be non-empty and must not contain ':'");
        }
    }

    /** ZooKeeper's {@code digest} scheme: {@code user:password}, hashed by the server. */
    public static Credentials digest(String user, String password) {
        return new Credentials("digest", user, password);
    }

    /** The bytes ZooKeeper's {@code addAuthInfo} expects. */
    public byte[] authBytes() {
        String auth = scheme.equals("digest") ? identity + ":" + secret : secret;
        return auth.getBytes(StandardCharsets.UTF_8);
    }

    /** How this identity appears in errors and logs: {@code digest:alice}. */
    public String principal() {
        return scheme + ":" + identity;
    }

    @Override
    public String toString() {
        return "Credentials[" + principal() + ", secret=****]";
    }
}
