package io.coord;

import java.util.List;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.zookeeper.data.ACL;

/**
 * Curator's ACL hook backed by an {@link AclPolicy}. Curator hands it full server paths (namespace
 * included) for every node it creates, parents and containers too; the policy's prefixes are
 * namespace-relative, so the namespace is stripped first. The namespace node itself, and anything
 * outside it, get the policy's default.
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
        String relative = path;
        if (namespacePrefix != null) {
            if (path.equals(namespacePrefix)) {
                return getDefaultAcl();
            }
            if (path.startsWith(namespacePrefix + "/")) {
                relative = path.substring(namespacePrefix.length());
            }
        }
        try {
            return policy.aclFor(CoordPath.of(relative));
        } catch (InvalidPathException e) {
            return getDefaultAcl();
        }
    }
}
