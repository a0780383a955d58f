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
 */
final class InstanceCodec implements InstanceSerializer<InstanceCodec.Meta> {
    /** What Coord keeps in the Curator payload. */
    record Meta(String zone, int weight, JsonNode data) {
    }

    static ServiceInstance<Meta> toInstance(Endpoint e, long registeredAt) {
        return new ServiceInstance<>(e.service(), e.id(), e.address(), e.port(),
                e.tlsPort().isPresent() ? e.tlsPort().getAsInt() : null,
                new Meta(e.zone(), e.weight(), e.payloadView()), registeredAt, ServiceType.DYNAMIC, null, e.inService());
    }

    /** The endpoint of an instance read from ZooKeeper; {@link InvalidInstanceException} if it is not a valid one. */
    static Endpoint toEndpoint(ServiceInstance<Meta> i) {
        Meta meta = i.getPayload() == null ? new Meta(null, 1, null) : i.getPayload();
        return new Endpoint(i.getName(), i.getId(), i.getAddress(), i.getPort() == null ? 0 : i.getPort(),
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

    @Override
    public ServiceInstance<Meta> deserialize(byte[] bytes) throws Exception {
        JsonNode root = Codec.mapper().readTree(bytes);
        if (root == null || !root.isObject()) {
            throw new InvalidInstanceException("instance data is not a JSON object");
        }
        if (text(root.path("name")) == null || text(root.path("id")) == null) {
            throw new InvalidInstanceException("instance data has no \"name\" or no \"id\"");
        }
        JsonNode payload = root.path("payload");
        Meta meta = new Meta(text(payload.path("zone")), payload.path("weight").asInt(1),
                payload.path("data").isObject() ? payload.path("data") : null);
        ServiceType type = root.path("serviceType").isTextual() ? ServiceType.valueOf(root.path("serviceType").asText())
                : ServiceType.DYNAMIC;
        ServiceInstance<Meta> instance = new ServiceInstance<>(text(root.path("name")), text(root.path("id")),
                text(root.path("address")), root.path("port").isInt() ? root.path("port").asInt() : null,
                root.path("sslPort").isInt() ? root.path("sslPort").asInt() : null, meta,
                root.path("registrationTimeUTC").asLong(0), type, null, root.path("enabled").asBoolean(true));
        toEndpoint(instance); // refuse what is not a valid endpoint, here rather than at every resolve
        return instance;
    }

    private static String text(JsonNode node) {
        return node.isTextual() ? node.asText() : null;
    }
}
