package io.coord;

import java.util.List;
import org.apache.curator.framework.AuthInfo;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.BoundedExponentialBackoffRetry;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;

/** Builds the Curator client a {@link CoordClient} owns, from its settings. */
final class CuratorFactory {
    private CuratorFactory() {
    }

    static CuratorFramework build(CoordSettings s) {
        CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder()
                .connectString(s.connectString())
                .sessionTimeoutMs((int) s.sessionTimeout().toMillis())
                .connectionTimeoutMs((int) s.connectionTimeout().toMillis())
                .retryPolicy(new BoundedExponentialBackoffRetry((int) s.retry().baseSleep().toMillis(),
                        (int) s.retry().maxSleep().toMillis(), s.retry().maxRetries()))
                .aclProvider(new PolicyAclProvider(s.aclPolicy(), s.namespace()))
                .zkClientConfig(clientConfig(s));
        if (s.namespace() != null) {
            b.namespace(s.namespace());
        }
        if (!s.credentials().isEmpty()) {
            // Given to the builder, auth is re-applied to every new ZooKeeper handle: it survives expiry.
            List<AuthInfo> auth = s.credentials().stream().map(c -> new AuthInfo(c.scheme(), c.authBytes())).toList();
            b.authorization(auth);
        }
        return b.build();
    }

    /** Per-client ZooKeeper settings: never JVM-global system properties, so clients can differ. */
    static ZKClientConfig clientConfig(CoordSettings s) {
        ZKClientConfig config = new ZKClientConfig();
        config.setProperty(ZKClientConfig.ZOOKEEPER_REQUEST_TIMEOUT, String.valueOf(s.requestTimeout().toMillis()));
        TlsSettings tls = s.tls();
        if (tls != null) {
            config.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
            config.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, "org.apache.zookeeper.ClientCnxnSocketNetty");
            try (ClientX509Util x509 = new ClientX509Util()) {
                if (tls.keyStore() != null) {
                    config.setProperty(x509.getSslKeystoreLocationProperty(), tls.keyStore().toString());
                    config.setProperty(x509.getSslKeystorePasswdProperty(), tls.keyStorePassword());
                    config.setProperty(x509.getSslKeystoreTypeProperty(), tls.storeType());
                }
                config.setProperty(x509.getSslTruststoreLocationProperty(), tls.trustStore().toString());
                if (tls.trustStorePassword() != null) {
                    config.setProperty(x509.getSslTruststorePasswdProperty(), tls.trustStorePassword());
                }
                config.setProperty(x509.getSslTruststoreTypeProperty(), tls.storeType());
                config.setProperty(x509.getSslHostnameVerificationEnabledProperty(), String.valueOf(tls.hostnameVerification()));
            }
        }
        return config;
    }
}
