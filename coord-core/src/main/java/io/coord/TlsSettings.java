package io.coord;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * TLS to the ensemble: ZooKeeper's Netty client socket with a keystore (client certificate,
 * optional when the server does not ask for one) and a truststore. Applied through Curator's
 * per-client {@code ZKClientConfig}, never through JVM-global system properties, so two clients
 * in one process can differ. Passwords never appear in {@link #toString()}.
 */
public record TlsSettings(Path keyStore, String keyStorePassword, Path trustStore, String trustStorePassword,
                          String storeType, boolean hostnameVerification) {
    public TlsSettings {
        Objects.requireNonNull(trustStore, "trustStore");
        Objects.requireNonNull(storeType, "storeType");
        if (!Files.isReadable(trustStore)) {
            throw new ConfigurationException("TLS truststore " + trustStore + " does not exist or is not readable");
        }
        if (keyStore != null && !Files.isReadable(keyStore)) {
            throw new ConfigurationException("TLS keystore " + keyStore + " does not exist or is not readable");
        }
        if (keyStore != null && keyStorePassword == null) {
            throw new ConfigurationException("TLS keystore " + keyStore + " is set but keyStorePassword is not");
        }
    }

    /** Trust only: the server authenticates itself, the client shows no certificate. */
    public static TlsSettings trustOnly(Path trustStore, String trustStorePassword) {
        return new TlsSettings(null, null, trustStore, trustStorePassword, "PKCS12", true);
    }

    /** Mutual TLS with PKCS12 stores and hostname verification on. */
    public static TlsSettings mutual(Path keyStore, String keyStorePassword, Path trustStore, String trustStorePassword) {
        return new TlsSettings(keyStore, keyStorePassword, trustStore, trustStorePassword, "PKCS12", true);
    }

    public TlsSettings withoutHostnameVerification() {
        return new TlsSettings(keyStore, keyStorePassword, trustStore, trustStorePassword, storeType, false);
    }

    @Override
    public String toString() {
        return "TlsSettings[keyStore=" + keyStore + ", trustStore=" + trustStore + ", storeType=" + storeType
                + ", hostnameVerification=" + hostnameVerification + ", passwords=****]";
    }
}
