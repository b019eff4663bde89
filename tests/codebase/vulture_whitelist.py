"""Names vulture reports as unused that are used, by something it cannot see.

Read by vulture (it is under tests/, one of [tool.vulture]'s paths), never
run or imported. Each entry says who uses the name. Add one only for such a
false positive; dead code is deleted, not listed here.
"""

# TypedDict keys: read and written by subscript (checkpoint["channel_values"]), which vulture does not follow.
_.channel_values  # engine/checkpoint/_shapes.py Checkpoint
_.versions_seen  # engine/checkpoint/_shapes.py Checkpoint
_.updated_channels  # engine/checkpoint/_shapes.py Checkpoint
_.refresh_on_read  # engine/store/base/_types.py TTLConfig
_.omit_expired  # engine/store/base/_types.py TTLConfig
_.default_ttl  # engine/store/base/_types.py TTLConfig
_.dims  # engine/store/base/_types.py IndexConfig
_.vector_type  # engine/store/postgres/base.py ANNIndexConfig (LangGraph's keys, refused when given)
_.ef_construction  # engine/store/postgres/base.py HNSWConfig
_.nlist  # engine/store/postgres/base.py IVFFlatConfig
_.ann_index_config  # engine/store/postgres/base.py PostgresIndexConfig
_.distance_type  # engine/store/postgres/base.py PostgresIndexConfig
_.additional_kwargs  # clients/python/graphwire/_messages.py Message (LangChain's dict form)
_.response_metadata  # clients/python/graphwire/_messages.py Message
_.usage_metadata  # clients/python/graphwire/_messages.py Message

# Set for the sqlite3 module, which reads it.
_.isolation_level  # engine/checkpoint/sqlite/_saver.py, engine/store/sqlite/_store.py

# LangGraph 1.2's public API, called by graph authors (the porting promise), not by this repository.
_.set_conditional_entry_point  # engine/graph/_state.py StateGraph
_.start_ttl_sweeper  # engine/store/base/_store.py BaseStore
_.with_config  # engine/pregel/_pregel.py Pregel (issue 15 makes it apply its arguments)
_.xray  # engine/func/_entrypoint.py get_graph(xray=): an entrypoint has no subgraph to expand
_.aget_graph  # engine/graph/_state.py, engine/func/_entrypoint.py (LangGraph's async twin of get_graph)
_.aget_subgraphs  # engine/pregel/_state_api.py (LangGraph's async twin of get_subgraphs)

# Read by pydantic: a request body's settings, and a field LangGraph's SDK sends back as the server gave it.
_.model_config  # server/http/_common.py Body (extra="forbid")
_.checkpoint_map  # server/http/_state.py Checkpoint (graphwire answers null; the SDK echoes it)

# Overrides called by the frameworks: grpc.ServerInterceptor, uvicorn.Server.
_.intercept_service  # server/_auth.py, server/_errors.py
_.capture_signals  # server/_web.py
_.should_exit  # server/_web.py (uvicorn's serve loop reads it)
# grpc.aio.ServicerContext's abstract methods, which server/_run_api.py CallContext must define (the run core calls none).
_.abort_with_status  # server/_run_api.py CallContext
_.set_code  # server/_run_api.py CallContext
_.set_details  # server/_run_api.py CallContext
_.set_compression  # server/_run_api.py CallContext
_.compression  # server/_run_api.py CallContext.set_compression's parameter (grpc's signature)
_.disable_next_message_compression  # server/_run_api.py CallContext
_.peer_identities  # server/_run_api.py CallContext
_.peer_identity_key  # server/_run_api.py CallContext
_.auth_context  # server/_run_api.py CallContext

# A LangChain callback handler's hooks and flags, called and read by langchain-core's callback managers.
_.run_inline  # engine/_langchain/stream.py MessagesHandler
_.tap_output_aiter  # engine/_langchain/stream.py MessagesHandler (LangChain's _StreamingCallbackHandler protocol)
_.tap_output_iter  # engine/_langchain/stream.py MessagesHandler
_.on_chat_model_start  # engine/_langchain/stream.py MessagesHandler
_.on_llm_new_token  # engine/_langchain/stream.py MessagesHandler
_.on_llm_end  # engine/_langchain/stream.py MessagesHandler
_.on_llm_error  # engine/_langchain/stream.py MessagesHandler
_.serialized  # engine/_langchain/stream.py on_chat_model_start's positional parameter (LangChain's signature)
_.on_tool_start  # engine/_langchain/tools.py ToolsHandler (LangChain's callbacks)
_.on_tool_end  # engine/_langchain/tools.py ToolsHandler
_.on_tool_error  # engine/_langchain/tools.py ToolsHandler
_.input_str  # engine/_langchain/tools.py on_tool_start's positional parameter (LangChain's signature)

# LangGraph's public API kept so that a program calling it is refused clearly (NotImplementedError).
_.aclear_cache  # engine/func/_task.py TaskFunction (LangGraph's public API)
__getattr__  # engine/constants.py: a module __getattr__ (LangGraph's deprecated Send/Interrupt there)

# LangGraph's public API, for programs written against it (engine.errors.ErrorCode's members name its messages' links).
_.INVALID_GRAPH_NODE_RETURN_VALUE  # engine/errors.py ErrorCode
_.MULTIPLE_SUBGRAPHS  # engine/errors.py ErrorCode
_.INVALID_CHAT_HISTORY  # engine/errors.py ErrorCode
__class_getitem__  # engine/graph/_state.py StateGraph: Python calls it for StateGraph[State, ...] (LangGraph's generic class)
_.InputType  # engine/pregel/_pregel.py Pregel: langchain-core's Runnable.get_input_schema reads it
_.OutputType  # engine/pregel/_pregel.py Pregel: langchain-core's Runnable.get_output_schema reads it
with_schemas  # engine/graph/_draw.py DrawableGraph.to_json (LangChain's signature: the engine draws no schema nodes)

# importlib's loader protocol: the import system calls them (engine/swap.py _Alias).
_.create_module  # engine/swap.py
_.exec_module  # engine/swap.py

# Keys of LangGraph's prebuilt state schemas and TypedDicts: read by programs and by the graph's channels.
_.structured_response  # engine/prebuilt/_agent_parts.py AgentStateWithStructuredResponse(Pydantic)
_.llm_input_messages  # engine/prebuilt/_react.py the agent node's input with a pre_model_hook
_.allow_ignore  # engine/prebuilt/interrupt.py HumanInterruptConfig
_.allow_respond  # engine/prebuilt/interrupt.py HumanInterruptConfig
_.allow_edit  # engine/prebuilt/interrupt.py HumanInterruptConfig
_.allow_accept  # engine/prebuilt/interrupt.py HumanInterruptConfig
_.action_request  # engine/prebuilt/interrupt.py HumanInterrupt

# LangGraph's v3 streaming protocol (engine/stream): what a transformer subclass sets and overrides, and
# the event's keys; LangChain 1.x's agents subclass StreamTransformer, and the engine runs no v3 stream.
_.timestamp  # engine/stream/_types.py ProtocolEvent params
_.event_id  # engine/stream/_types.py ProtocolEvent
_.requires_async  # engine/stream/_types.py StreamTransformer
_.supports_sync  # engine/stream/_types.py StreamTransformer
_.required_stream_modes  # engine/stream/_types.py StreamTransformer
_.before_builtins  # engine/stream/_types.py StreamTransformer
_.aprocess  # engine/stream/_types.py StreamTransformer
_.afinalize  # engine/stream/_types.py StreamTransformer
_.afail  # engine/stream/_types.py StreamTransformer
_.graph_name  # engine/stream/transformers.py LifecyclePayload
_.trigger_call_id  # engine/stream/transformers.py LifecyclePayload
_._native  # engine/prebuilt/_tool_call_transformer.py ToolCallTransformer (a v3 run stream reads it)

# LangGraph's v3 streaming protocol (engine/stream): API a caller or a transformer calls, and a LangChain hook.
_.on_stream_event  # engine/_langchain/stream.py MessagesHandlerV2 (langchain-core's v2 streaming callback)
_.transformer_by_key  # engine/stream/_mux.py StreamMux
_.schedule  # engine/stream/_types.py StreamTransformer (a transformer's async work)
_.interleave  # engine/stream/run_stream.py GraphRunStream
_.tee  # engine/stream/stream_channel.py StreamChannel
_.atee  # engine/stream/stream_channel.py StreamChannel
_.output_deltas  # engine/prebuilt/_tool_call_stream.py ToolCallStream (a caller reads a call's partial outputs)

# Held in a thread's locals for its finalizer alone: when the thread ends it hands the loop on.
_.keeper  # engine/_internal/_sync.py _thread_loop (_Keeper)

# LangGraph's RemoteGraph: a private method its own tests call (test_remote_graph.py's test_sanitize_config).
_._sanitize_config  # engine/pregel/remote.py RemoteGraph

# Read by inspect.signature, which returns a function's __signature__ as it is.
_.__signature__  # engine/checkpoint/_sync_twins.py keep_signatures (LangGraph's loop asks put_writes' signature every run)
