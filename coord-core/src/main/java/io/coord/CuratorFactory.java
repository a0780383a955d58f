package io.coord;

import java.util.List;
import java.util.concurrent.Executor;
import java.util.stream.Collectors;
import org.apache.curator.framework.AuthInfo;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.BoundedExponentialBackoffRetry;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Builds the Curator client a {@link CoordClient} owns, from its settings. */
final class CuratorFactory {
    private static final Logger LOG = LoggerFactory.getLogger(CuratorFactory.class);

    private CuratorFactory() {
    }

    /**
     * {@code probe} makes every new ZooKeeper handle's first request {@link AuthCheck}'s probe;
     * Curator's {@code runSafe} work (its recipes' notifications) runs on {@code notify}, which the
     * client shuts down when it closes (Curator never shuts down the thread it would make itself).
     */
    static CuratorFramework build(CoordSettings s, AuthProbe probe, Executor notify) {
        CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder()
                .zookeeperFactory(probe)
                .runSafeService(notify)
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
        warnIfDigestInClear(s);
        return b.build();
    }

    /**
     * ZooKeeper's digest scheme sends {@code user:password} as it is in the auth packet; without
     * TLS anyone on the path can read it. Said once per client, when it is built.
     */
    private static void warnIfDigestInClear(CoordSettings s) {
        if (s.tls() != null) {
            return;
        }
        String digestUsers = s.credentials().stream().filter(c -> c.scheme().equals("digest"))
                .map(Credentials::principal).collect(Collectors.joining(", "));
        if (!digestUsers.isEmpty()) {
            LOG.warn("digest credentials ({}) will be sent to {} without TLS: the digest scheme carries the password"
                    + " in clear text, readable by anyone on the network path; set CoordSettings.tls(...)",
                    digestUsers, s.connectString());
        }
    }

    /**
     * Per-client ZooKeeper settings: never JVM-global system properties, so clients can differ.
     * ZooKeeper's {@link ZKClientConfig} starts from the JVM's {@code zookeeper.*} system
     * properties; every TLS key Coord cares about is therefore set explicitly, including "none"
     * (an empty keystore location, {@code client.secure=false}), so that a stray global setting
     * (a server's keystore in the same JVM, say) can never change what this client presents.
     */
    static ZKClientConfig clientConfig(CoordSettings s) {
        ZKClientConfig config = new ZKClientConfig();
        config.setProperty(ZKClientConfig.ZOOKEEPER_REQUEST_TIMEOUT, String.valueOf(s.requestTimeout().toMillis()));
        TlsSettings tls = s.tls();
        if (tls == null) {
            config.setProperty(ZKClientConfig.SECURE_CLIENT, "false");
            return config;
        }
        config.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
        config.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, "org.apache.zookeeper.ClientCnxnSocketNetty");
        try (ClientX509Util x509 = new ClientX509Util()) {
            config.setProperty(x509.getSslKeystoreLocationProperty(), tls.keyStore() == null ? "" : tls.keyStore().toString());
            config.setProperty(x509.getSslKeystorePasswdProperty(), tls.keyStorePassword() == null ? "" : tls.keyStorePassword());
            config.setProperty(x509.getSslKeystorePasswdPathProperty(), "");
            config.setProperty(x509.getSslKeystoreTypeProperty(), tls.storeType());
            config.setProperty(x509.getSslTruststoreLocationProperty(), tls.trustStore().toString());
            config.setProperty(x509.getSslTruststorePasswdProperty(), tls.trustStorePassword() == null ? "" : tls.trustStorePassword());
            config.setProperty(x509.getSslTruststorePasswdPathProperty(), "");
            config.setProperty(x509.getSslTruststoreTypeProperty(), tls.storeType());
            config.setProperty(x509.getSslHostnameVerificationEnabledProperty(), String.valueOf(tls.hostnameVerification()));
            config.setProperty(x509.getSslContextSupplierClassProperty(), null);
        }
        return config;
    }
}
