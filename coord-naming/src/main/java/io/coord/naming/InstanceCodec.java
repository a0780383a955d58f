package io.coord.naming;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.coord.Codec;
import java.util.OptionalInt;
import org.apache.curator.x.discovery.ServiceInstance;
import org.apache.curator.x.discovery.ServiceType;
import org.apache.curator.x.discovery.details.InstanceSerializer;

/**
 * Instance JSON in curator-x-discovery's layout ({@code name, id, address, port, sslPort, payload,
 * registrationTimeUTC, serviceType, uriSpec, enabled}), so plain Curator clients can read what
 * Coord registers. The payload is {@code {"zone", "weight", "data"}}.
 *
 * <p>Not Curator's {@code JsonInstanceSerializer}: that one types the payload by a class name
 * stored in the node ({@code @class}), so whoever can write a node chooses which class this JVM
 * instantiates. Here the payload is read as a JSON tree with Coord's strict limits, and a
 * {@code @class} written by a plain Curator client is ignored.
 *
 * <p>An instance is the service its node is under: the JSON's {@code name} is not checked against
 * it, so a Curator client that registers under Coord's path with another name (a {@code basePath}
 * of {@code /services/prod/payments/orders} and the name {@code _instances}) is read as an instance
 * of {@code orders.payments.prod}. Data Coord cannot decode is never dropped in silence:
 * {@link #deserialize} (called inside Curator's cache, where an exception would lose the instance
 * without a word) returns a placeholder that carries the reason, and the resolver and inspection
 * report it by node name ({@link ZkDiscovery#undecodable}).
 */
final class InstanceCodec implements InstanceSerializer<InstanceCodec.Meta> {
    /** What Coord keeps in the Curator payload; {@code problem} is why the data could not be decoded, else null. */
    record Meta(String zone, int weight, JsonNode data, String problem) {
        Meta(String zone, int weight, JsonNode data) {
            this(zone, weight, data, null);
        }
    }

    /** The id of a placeholder for data without a readable id; never a valid instance id (it has a '/'). */
    static final String UNREADABLE_ID = "?/unreadable";

    static ServiceInstance<Meta> toInstance(Endpoint e, long registeredAt) {
        return new ServiceInstance<>(e.service(), e.id(), e.address(), e.port(),
                e.tlsPort().isPresent() ? e.tlsPort().getAsInt() : null,
                new Meta(e.zone(), e.weight(), e.payloadView()), registeredAt, ServiceType.DYNAMIC, null, e.inService());
    }

    /**
     * The endpoint of an instance of {@code service} read from ZooKeeper; {@link InvalidInstanceException}
     * (saying why) if it is not a valid one or its data could not be decoded.
     */
    static Endpoint toEndpoint(String service, ServiceInstance<Meta> i) {
        Meta meta = i.getPayload() == null ? new Meta(null, 1, null) : i.getPayload();
        if (meta.problem() != null) {
            throw new InvalidInstanceException(meta.problem());
        }
        return new Endpoint(service, i.getId(), i.getAddress(), i.getPort() == null ? 0 : i.getPort(),
                i.getSslPort() == null ? OptionalInt.empty() : OptionalInt.of(i.getSslPort()),
                meta.zone(), meta.weight(), meta.data(), i.isEnabled());
    }

    @Override
    public byte[] serialize(ServiceInstance<Meta> instance) throws Exception {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        root.put("name", instance.getName());
        root.put("id", instance.getId());
        root.put("address", instance.getAddress());
        root.put("port", instance.getPort());
        root.put("sslPort", instance.getSslPort());
        ObjectNode payload = root.putObject("payload");
        Meta meta = instance.getPayload();
        payload.put("zone", meta.zone());
        payload.put("weight", meta.weight());
        payload.set("data", meta.data());
        root.put("registrationTimeUTC", instance.getRegistrationTimeUTC());
        root.put("serviceType", instance.getServiceType().name());
        root.putNull("uriSpec");
        root.put("enabled", instance.isEnabled());
        return Codec.mapper().writeValueAsBytes(root);
    }

    /**
     * Never throws: data that is not instance JSON Coord can read becomes a placeholder whose payload
     * says why ({@link Meta#problem()}), which {@link #toEndpoint} refuses (as it refuses JSON that is
     * not a valid endpoint).
     */
    @Override
    public ServiceInstance<Meta> deserialize(byte[] bytes) {
        try {
            return read(bytes);
        } catch (Exception e) {
            String why = e instanceof InvalidInstanceException ? e.getMessage()
                    : "not curator-x-discovery instance JSON (" + e.getClass().getSimpleName() + ": "
                    + String.valueOf(e.getMessage()).lines().findFirst().orElse("") + ")";
            return new ServiceInstance<>("?", UNREADABLE_ID, null, null, null, new Meta(null, 1, null, why), 0,
                    ServiceType.DYNAMIC, null, false);
        }
    }

    /** The endpoint in {@code bytes}, an instance of {@code service}; {@link InvalidInstanceException} saying why not. */
    Endpoint decode(String service, byte[] bytes) {
        return toEndpoint(service, deserialize(bytes));
    }

    private ServiceInstance<Meta> read(byte[] bytes) throws Exception {
        JsonNode root = Codec.mapper().readTree(bytes);
        if (root == null || !root.isObject()) {
            throw new InvalidInstanceException("instance data is not a JSON object");
        }
        if (text(root.path("id")) == null) {
            throw new InvalidInstanceException("instance data has no \"id\"");
        }
        JsonNode payload = root.path("payload");
        Meta meta = new Meta(text(payload.path("zone")), payload.path("weight").asInt(1),
                payload.path("data").isObject() ? payload.path("data") : null);
        ServiceType type = root.path("serviceType").isTextual() ? ServiceType.valueOf(root.path("serviceType").asText())
                : ServiceType.DYNAMIC;
        String name = text(root.path("name"));
        ServiceInstance<Meta> instance = new ServiceInstance<>(name == null ? "?" : name, text(root.path("id")),
                text(root.path("address")), root.path("port").isInt() ? root.path("port").asInt() : null,
                root.path("sslPort").isInt() ? root.path("sslPort").asInt() : null, meta,
                root.path("registrationTimeUTC").asLong(0), type, null, root.path("enabled").asBoolean(true));
        return instance; // checked as an endpoint by toEndpoint, where its service (the node's path) is known
    }

    private static String text(JsonNode node) {
        return node.isTextual() ? node.asText() : null;
    }
}
