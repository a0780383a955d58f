package io.coord;

import java.util.List;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.zookeeper.data.ACL;

/**
 * Curator's ACL hook backed by an {@link AclPolicy}, whose prefixes are namespace-relative.
 *
 * <p>What Curator 5.9.0 passes as {@code path} (read from its sources):
 * <ul>
 *   <li>the full server path, namespace included, for a leaf made by {@code create()}
 *       ({@code CreateBuilderImpl.forPath} asks with the namespace-fixed path), for every parent
 *       made by {@code creatingParents(Containers)IfNeeded} and for the namespace node itself
 *       (both go through {@code ZKPaths.mkdirs}, which asks with each full sub-path), and for
 *       {@code setACL()};</li>
 *   <li>the namespace-relative path, as the caller wrote it, for a create inside a
 *       transaction ({@code CreateBuilderImpl.asTransactionCreateBuilder}).</li>
 * </ul>
 * So a path under {@code /<namespace>} is read as a full path and stripped; any other path can
 * only be a relative one. The namespace node and its ancestors get the policy's ACL for the root.
 *
 * <p>One case stays ambiguous, and the provider cannot tell it apart: a create inside a
 * transaction whose namespace-relative path itself begins with {@code /<namespace>/} (namespace
 * {@code app}, transaction create of {@code /app/x}). It is read as a full path, i.e. as
 * {@code /x}, because plain creates are by far the common case. Do not start recipe paths with
 * the namespace's own name.
 */
final class PolicyAclProvider implements ACLProvider {
    private final AclPolicy policy;
    private final String namespacePrefix;

    PolicyAclProvider(AclPolicy policy, String namespace) {
        this.policy = policy;
        this.namespacePrefix = namespace == null ? null : "/" + namespace;
    }

    @Override
    public List<ACL> getDefaultAcl() {
        return policy.aclFor(CoordPath.ROOT);
    }

    @Override
    public List<ACL> getAclForPath(String path) {
        if (path == null) {
            return getDefaultAcl();
        }
        if (namespacePrefix == null) {
            return forRelative(path);
        }
        if (path.equals(namespacePrefix) || namespacePrefix.startsWith(path + "/")) {
            return getDefaultAcl();
        }
        if (path.startsWith(namespacePrefix + "/")) {
            return forRelative(path.substring(namespacePrefix.length()));
        }
        // Outside the namespace: only a transaction create passes such a (relative) path.
        return forRelative(path);
    }

    private List<ACL> forRelative(String path) {
        try {
            return policy.aclFor(CoordPath.of(path));
        } catch (InvalidPathException e) {
            // Curator only asks for paths it is about to create; ZooKeeper will refuse a bad one anyway.
            return getDefaultAcl();
        }
    }
}
