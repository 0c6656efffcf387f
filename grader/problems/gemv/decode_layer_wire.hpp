// Lab 09's decoder layer takes its arrays as one struct (decode_layer.cuh); on the wire
// between the judge and the runner (harness/wire_call.hpp) it is its fields, in order.
#pragma once
#include "../../harness/wire_call.hpp"
#include "roofline/contract/decode_layer.cuh"

namespace roofline::harness {

template <>
struct ArgCodec<gemv::DecodeLayer> {
    static constexpr const char* kind = "L";
    static void encode(const gemv::DecodeLayer& layer, WireCall& out) {
        WireCall fields = WireCall::array();
        for (int size : {layer.hidden, layer.heads, layer.ffn, layer.cache}) ArgCodec<int>::encode(size, fields);
        for (const void* array : pointers(layer)) ArgCodec<const void*>::encode(array, fields);
        out.push_back(nlohmann::json::array({"L", fields}));
    }
    static gemv::DecodeLayer decode(const WireCall& call, std::size_t& at) {
        const WireCall& fields = ArgCodec<void*>::take(call, at, "L").at(1);
        gemv::DecodeLayer layer;
        std::size_t field = 0;
        for (int* size : {&layer.hidden, &layer.heads, &layer.ffn, &layer.cache}) *size = ArgCodec<int>::decode(fields, field);
        layer.x = static_cast<const __nv_bfloat16*>(ArgCodec<const void*>::decode(fields, field));
        layer.attn_norm = static_cast<const __nv_bfloat16*>(ArgCodec<const void*>::decode(fields, field));
        layer.w_qkv = static_cast<const __nv_bfloat16*>(ArgCodec<const void*>::decode(fields, field));
        layer.k_cache = static_cast<const __nv_bfloat16*>(ArgCodec<const void*>::decode(fields, field));
        layer.v_cache = static_cast<const __nv_bfloat16*>(ArgCodec<const void*>::decode(fields, field));
        layer.w_o = static_cast<const __nv_bfloat16*>(ArgCodec<const void*>::decode(fields, field));
        layer.mlp_norm = static_cast<const __nv_bfloat16*>(ArgCodec<const void*>::decode(fields, field));
        layer.w_gate_up = static_cast<const __nv_bfloat16*>(ArgCodec<const void*>::decode(fields, field));
        layer.w_down = static_cast<const __nv_bfloat16*>(ArgCodec<const void*>::decode(fields, field));
        layer.scratch = static_cast<float*>(ArgCodec<void*>::decode(fields, field));
        layer.y = static_cast<__nv_bfloat16*>(ArgCodec<void*>::decode(fields, field));
        if (field != fields.size()) throw WireError("a decoder layer with more fields than DecodeLayer has");
        return layer;
    }
    // The order decode() reads them in.
    static std::vector<const void*> pointers(const gemv::DecodeLayer& l) {
        return {l.x, l.attn_norm, l.w_qkv, l.k_cache, l.v_cache, l.w_o, l.mlp_norm, l.w_gate_up, l.w_down, l.scratch, l.y};
    }
};

}  // namespace roofline::harness
