// POST /v1/completions and /v1/chat/completions: decode, resolve the model,
// render the chat, build the request per the model's contract, submit, and
// answer whole or as server-sent events.
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "conch/transports/openai/build_request.hpp"
#include "conch/transports/openai/decode_requests.hpp"
#include "conch/transports/openai/encode_responses.hpp"
#include "conch/transports/openai/generation_output.hpp"
#include "conch/transports/openai/logprobs.hpp"
#include "conch/transports/openai/model_contract.hpp"
#include "conch/transports/openai/routes.hpp"
#include "conch/transports/openai/stop_scanner.hpp"
#include "conch/transports/openai/tool_calls.hpp"
#include "conch/transports/openai/utf8.hpp"

namespace conch::transports::openai {

namespace {

enum class answer_kind { completion, chat };

// A chat whose tool_choice names the function the model must call (or
// "required", the first one): the whole text is that call's arguments.
struct forced_call {
  std::string name;
};

std::string_view body_of(const http::request& req) {
  return {reinterpret_cast<const char*>(req.body.data()), req.body.size()};
}

// One answer in progress. The server calls on_response once per response,
// one call at a time; the loop thread may cancel meanwhile.
// Where a model reports no token counts, a tokenizer counts them
// (token_counter), on a render thread, never the server's: the prompt and
// the answer the client got.
struct usage_counting {
  token_counter count;
  std::weak_ptr<render_pool> pool;
  std::string prompt;
};

class generation final : public std::enable_shared_from_this<generation> {
 public:
  generation(answer_kind kind, const generation_settings& s, std::optional<forced_call> call,
             std::optional<tool_call_reader> tools, usage_counting counting,
             http::responder res, protocol::admission::ticket ticket)
    : kind_(kind), stream_(s.stream), usage_(s.usage), logprobs_(s.logprobs.has_value()),
      header_{new_answer_id(), unix_seconds(), s.model}, stops_(s.stop),
      call_(std::move(call)), tools_(std::move(tools)), counting_(std::move(counting)),
      res_(std::move(res)), ticket_(std::move(ticket)) {}

  cancel_slot& canceller() { return cancel_; }

  void on_response(runtime::inference_response&& r) {
    if (done_)
      return;
    if (!r.error.is_ok()) {
      // A stream whose request was cancelled (the server stopping) ends as
      // a stream does, with what it had; the client's own cancel never
      // reaches it.
      if (r.error.code() == runtime::errc::cancelled && started_)
        r = runtime::inference_response{};
      else
        return fail(r.error);
      r.final = true;
    }
    auto out = read_generation(r);
    if (!out) {
      fail(out.error());
      return;
    }
    tally_.add(*out);
    // This response's log probabilities: a stream's chunk carries them, a
    // whole answer gathers them.
    std::string chunk_logprobs;
    if (logprobs_ && !out->logprobs_json.empty()) {
      auto positions = read_vllm_logprobs(out->logprobs_json);
      if (stream_ && !positions.empty())
        chunk_logprobs = kind_ == answer_kind::completion
                           ? completion_logprobs_json(positions, streamed_chars_)
                           : chat_logprobs_json(positions);
      else
        std::move(positions.begin(), positions.end(), std::back_inserter(positions_));
    }
    streamed_chars_ += character_count(out->text);
    // A character the model split between responses waits for its end.
    std::string text = std::move(utf8_tail_);
    text += out->text;
    utf8_tail_.clear();
    if (!r.final) {
      size_t tail = incomplete_utf8_tail(text);
      utf8_tail_.assign(text, text.size() - tail, tail);
      text.resize(text.size() - tail);
    }
    std::string piece = stops_.feed(text);
    const bool stopped = stops_.stopped();
    if (r.final && !stopped)
      piece += stops_.flush();
    const bool finished = r.final || stopped;
    // What the client gets, for a tokenizer to count where the model
    // reports no counts (tool calls included).
    if (counting_.count && (!stream_ || usage_ == usage_chunk::included))
      answer_text_ += piece;
    if (tools_) {
      piece = tools_->feed(piece);
      if (tools_->overflowed()) {
        end_at_parse_limit();
        return;
      }
    }
    if (stream_)
      stream_piece(piece, finished, chunk_logprobs);
    else
      text_ += piece;
    if (!finished)
      return;
    if (!stream_)
      answer_whole();
    finish();
    // The model may go on; what it would say is past the stop.
    if (stopped && !r.final)
      cancel_.cancel();
  }

 private:
  std::string_view finish_reason() const { return "stop"; }

  void fail(const runtime::status& error) {
    if (!started_) {
      res_.send(error_response(from_status(error)));
    } else {
      // Mid-stream, the error is the last event before [DONE]: OpenAI's
      // clients raise it.
      res_.write(sse_event(stream_error_event(error)));
      res_.write(sse_done());
      res_.end_stream();
    }
    finish();
    cancel_.cancel();
  }

  void finish() {
    done_ = true;
    // An answer waiting on the tokenizer keeps its place in flight.
    if (!deferred_)
      ticket_.reset();
  }

  void start_stream() {
    if (started_)
      return;
    http::response head{200};
    head.headers.set("Content-Type", "text/event-stream; charset=utf-8");
    head.headers.set("Cache-Control", "no-cache");
    res_.begin_stream(std::move(head));
    started_ = true;
    if (kind_ == answer_kind::chat)
      res_.write(sse_event(chat_role_chunk(header_)));
  }

  void stream_piece(std::string piece, bool finished, const std::string& logprobs) {
    start_stream();
    // Calls streamed as they come: their new pieces now, and at the end
    // what is left of them with finish_reason "tool_calls".
    if (tools_ && tools_->holding()) {
      auto deltas = tools_->deltas();
      if (tools_->streamed()) {
        if (!deltas.empty() || finished)
          res_.write(sse_event(chat_tool_chunk(
            header_, deltas,
            finished ? std::optional<std::string_view>{"tool_calls"} : std::nullopt)));
        if (finished) {
          tools_->finish();
          end_stream();
        }
        return;
      }
    }
    if (piece.empty() && !finished && logprobs.empty())
      return;
    std::optional<std::string_view> reason;
    if (finished)
      reason = finish_reason();
    if (finished && tools_ && tools_->holding()) {
      auto parsed = tools_->finish();
      if (!parsed.calls.empty()) {
        piece += parsed.content;
        if (!piece.empty())
          res_.write(sse_event(chat_content_chunk(header_, piece, std::nullopt)));
        std::vector<tool_call_delta> deltas;
        for (size_t i = 0; i < parsed.calls.size(); ++i) {
          auto& c = parsed.calls[i];
          deltas.push_back({static_cast<int>(i), true, std::move(c.id), std::move(c.name),
                            std::move(c.arguments)});
        }
        res_.write(sse_event(chat_tool_chunk(header_, deltas, std::string_view{"tool_calls"})));
        end_stream();
        return;
      }
      piece += parsed.content;
    }
    if (kind_ == answer_kind::completion) {
      res_.write(sse_event(completion_chunk(header_, piece, reason, logprobs)));
    } else if (call_) {
      tool_call_delta d{0, !call_sent_, header_.id, call_->name, piece};
      call_sent_ = true;
      res_.write(sse_event(chat_tool_chunk(header_, {d}, reason)));
    } else {
      res_.write(sse_event(chat_content_chunk(header_, piece, reason, logprobs)));
    }
    if (finished)
      end_stream();
  }

  // The usage chunk when asked for, [DONE], the end; after counting the
  // tokens where the model reported none.
  void end_stream() {
    if (usage_ == usage_chunk::included
        && count_then([](generation& g) { g.end_stream_now(); }))
      return;
    end_stream_now();
  }

  void end_stream_now() {
    if (usage_ == usage_chunk::included)
      if (auto counts = usage())
        res_.write(sse_event(usage_chunk_body(header_, kind_ == answer_kind::completion
                                                         ? "text_completion"
                                                         : "chat.completion.chunk",
                                              *counts)));
    res_.write(sse_done());
    res_.end_stream();
  }

  // A tool call longer than --max-tool-call-parse-bytes: the answer ends
  // with finish_reason "length" and the request is cancelled.
  void end_at_parse_limit() {
    if (stream_) {
      start_stream();
      res_.write(sse_event(chat_content_chunk(header_, "", std::string_view{"length"})));
      end_stream();
    } else {
      res_.send(json_response(chat_body(header_, text_, {}, "length", usage())));
    }
    finish();
    cancel_.cancel();
  }

  void answer_whole() {
    if (count_then([](generation& g) { g.answer_whole_now(); }))
      return;
    answer_whole_now();
  }

  // Runs `then` on a render thread after counting the tokens, where the
  // model reported no counts and a tokenizer can; false (nothing done)
  // otherwise.
  bool count_then(void (*then)(generation&)) {
    if (!counting_.count || tally_.counts())
      return false;
    auto pool = counting_.pool.lock();
    if (!pool)
      return false;
    // Runs `then` once: after counting, or without counts when the pool
    // drops the task (stopping), so the answer always ends.
    struct continuation {
      std::shared_ptr<generation> self;
      void (*then)(generation&);
      bool ran = false;
      ~continuation() {
        if (!ran)
          finish_deferred(*self, then);
      }
    };
    auto next = std::make_shared<continuation>();
    next->self = shared_from_this();
    next->then = then;
    deferred_ = true;
    if (pool->post([next] {
          next->self->count_tokens();
          next->ran = true;
          finish_deferred(*next->self, next->then);
        }))
      return true;
    next->ran = true;  // not queued: answered at once by the caller
    deferred_ = false;
    return false;
  }

  // The deferred end of an answer: `then`, and the admission ticket back.
  static void finish_deferred(generation& g, void (*then)(generation&)) {
    then(g);
    g.ticket_.reset();
  }

  void count_tokens() {
    auto prompt = counting_.count(counting_.prompt);
    auto completion = counting_.count(answer_text_);
    if (prompt && completion)
      counted_ = usage_counts{*prompt, *completion};
  }

  // The answer's usage: the model's counts, else the tokenizer's.
  std::optional<usage_counts> usage() const {
    auto reported = tally_.counts();
    return reported ? reported : counted_;
  }

  void answer_whole_now() {
    std::string body;
    if (kind_ == answer_kind::completion)
      body = completion_body(header_, text_, finish_reason(), usage(), whole_logprobs());
    else if (call_)
      body = chat_body(header_, "", {{header_.id, call_->name, text_}}, finish_reason(),
                       usage());
    else if (tools_ && tools_->holding())
      body = answer_with_calls();
    else
      body = chat_body(header_, text_, {}, finish_reason(), usage(), whole_logprobs());
    res_.send(json_response(std::move(body)));
  }

  // The whole answer of a chat read for tool calls: the calls the parser
  // found (finish_reason "tool_calls"), or the text as content.
  std::string answer_with_calls() {
    auto parsed = tools_->finish();
    text_ += parsed.content;
    if (parsed.calls.empty())
      return chat_body(header_, text_, {}, finish_reason(), usage());
    return chat_body(header_, text_, parsed.calls, "tool_calls", usage());
  }

  // A whole answer's log probabilities, as JSON; empty for none.
  std::string whole_logprobs() const {
    if (positions_.empty())
      return {};
    return kind_ == answer_kind::completion ? completion_logprobs_json(positions_, 0)
                                            : chat_logprobs_json(positions_);
  }

  const answer_kind kind_;
  const bool stream_;
  const usage_chunk usage_;
  const bool logprobs_;
  const answer_header header_;
  stop_scanner stops_;
  const std::optional<forced_call> call_;
  std::optional<tool_call_reader> tools_;
  usage_counting counting_;
  std::string answer_text_;              // a stream's text, when tokens are counted
  std::optional<usage_counts> counted_;  // the tokenizer's counts
  http::responder res_;
  protocol::admission::ticket ticket_;
  cancel_slot cancel_;
  usage_tally tally_;
  std::string text_;
  std::string utf8_tail_;
  std::vector<position_logprobs> positions_;  // a whole answer's
  int64_t streamed_chars_ = 0;                // characters the model sent so far
  bool started_ = false;
  bool deferred_ = false;  // the answer ends on a render thread
  bool done_ = false;
  bool call_sent_ = false;
};

// What a text request needs once decoded: the model, its contract, the
// prompt and the tool the model must call, if any.
struct prepared_text {
  runtime::inference_request request;
  runtime::resolved_model_ptr model;
  std::optional<forced_call> call;
};

// The model a request's name names, with its LoRA adapter, if any, put
// into `settings`.
runtime::result<runtime::resolved_model_ptr> resolve_named(const openai_handler_options& options,
                                                           generation_settings& settings) {
  auto name = split_model_name(settings.model, options.lora.separator);
  auto model = resolve_model(*options.server, name.model, settings.model);
  if (!model)
    return model.error();
  auto task = adapter_task_id(options.lora, name, settings.model);
  if (!task)
    return task.error();
  settings.lora_name = name.adapter;
  settings.lora_task_id = *task;
  return model;
}

runtime::result<prepared_text> prepare(const openai_handler_options& options,
                                       generation_settings settings, std::string_view prompt,
                                       const output_schema& schema,
                                       std::optional<forced_call> call) {
  auto model = resolve_named(options, settings);
  if (!model)
    return model.error();
  const auto& config = *(*model)->config;
  auto contract = contract_of(config);
  if (!contract)
    return contract.error();
  auto request = build_generate_request(config, *contract, prompt, settings,
                                        options.default_max_tokens, schema);
  if (!request)
    return request.error();
  return prepared_text{std::move(*request), std::move(*model), std::move(call)};
}

void submit(route_call& call, answer_kind kind, const generation_settings& settings,
            std::string_view prompt, prepared_text prepared,
            std::optional<tool_call_reader> tools = std::nullopt) {
  usage_counting counting;
  if (call.options.count_tokens) {
    counting.count = call.options.count_tokens;
    counting.pool = call.renderers;
    counting.prompt = std::string{prompt};
  }
  auto pending = std::make_shared<generation>(kind, settings, std::move(prepared.call),
                                              std::move(tools), std::move(counting),
                                              std::move(call.res), std::move(call.ticket));
  auto cancel = call.options.server->submit(
    std::move(prepared.request),
    [pending](runtime::inference_response&& r) { pending->on_response(std::move(r)); },
    {runtime::submitter::frontend, runtime::placement::queued, runtime::trace_origin{},
     std::move(prepared.model)});
  pending->canceller().set(std::move(cancel));
  call.req->on_cancel([pending] { pending->canceller().cancel(); });
}

// The tool a chat request makes the model call: the one tool_choice names,
// or for "required" the first of `tools`; its parameters' schema guides the
// output where the model takes guidance.
std::optional<forced_call> forced_tool(const chat_request& chat, output_schema& schema) {
  size_t index = 0;
  if (chat.tool_choice == tool_choice_mode::named) {
    while (index < chat.tool_names.size() && chat.tool_names[index] != chat.tool_choice_name)
      ++index;
  } else if (chat.tool_choice != tool_choice_mode::required) {
    return std::nullopt;
  }
  if (index >= chat.tool_names.size())
    return std::nullopt;
  schema.json = chat.tool_parameters[index];
  return forced_call{chat.tool_names[index]};
}

// A chat decoded and checked on the loop thread, waiting to be rendered.
struct pending_chat {
  route_call call;
  chat_request request;
  std::optional<tool_call_reader> tools;
};

// On a render thread: renders the chat, builds the request and submits it.
void render_and_submit(pending_chat& chat) {
  auto& call = chat.call;
  auto& request = chat.request;
  auto prompt = call.options.chat_template({request.messages_json, request.tools_json});
  if (!prompt) {
    call.res.send(error_response(detail_error(400, prompt.error().message())));
    return;
  }
  output_schema schema;
  auto forced = forced_tool(request, schema);
  if (!forced && request.response_json) {
    schema.json = request.response_schema_json;
    schema.any_json = true;
  }
  auto prepared = prepare(call.options, request.settings, *prompt, schema, std::move(forced));
  if (!prepared) {
    call.res.send(error_response(from_status(prepared.error())));
    return;
  }
  submit(call, answer_kind::chat, request.settings, *prompt, std::move(*prepared),
         std::move(chat.tools));
}

} // namespace

void serve_completion(route_call&& call) {
  completion_request request;
  if (auto bad = decode_completion_request(body_of(*call.req), request)) {
    call.res.send(error_response(*bad));
    return;
  }
  auto prepared = prepare(call.options, request.settings, request.prompt, {}, std::nullopt);
  if (!prepared) {
    call.res.send(error_response(from_status(prepared.error())));
    return;
  }
  submit(call, answer_kind::completion, request.settings, request.prompt,
         std::move(*prepared));
}

void serve_chat(route_call&& call) {
  chat_request request;
  if (auto bad = decode_chat_request(body_of(*call.req), request)) {
    call.res.send(error_response(*bad));
    return;
  }
  // Tool calls in free text need a parser: without one, "auto" and tools
  // without a choice are refused as Triton refuses them.
  const auto& parser = call.options.tool_call_parser;
  if (!parser && request.tool_choice == tool_choice_mode::auto_) {
    call.res.send(error_response(
      detail_error(400, "\"auto\" tool choice requires --tool-call-parser to be set")));
    return;
  }
  if (!parser && !request.tool_names.empty()
      && request.tool_choice == tool_choice_mode::unset) {
    call.res.send(error_response(
      detail_error(400, "having tools in the request requires --tool-call-parser to be set")));
    return;
  }
  std::optional<tool_call_reader> tools;
  if (parser && !request.tool_names.empty()
      && (request.tool_choice == tool_choice_mode::unset
          || request.tool_choice == tool_choice_mode::auto_))
    tools.emplace(*parser, call.options.max_tool_call_parse_bytes);
  // The model must exist before the chat is rendered, as Triton checks it first.
  auto named = request.settings;
  if (auto model = resolve_named(call.options, named); !model) {
    call.res.send(error_response(from_status(model.error())));
    return;
  }
  if (!call.options.chat_template) {
    call.res.send(error_response(detail_error(
      400, "Unknown tokenizer: chat completions need a chat template (start the frontend with "
           "a tokenizer or a chat template)")));
    return;
  }
  // Rendering may take its time (Jinja2 under Python's GIL): it runs on the
  // render pool, which then submits; the loop thread goes on at once.
  auto chat = std::make_shared<pending_chat>(
    pending_chat{std::move(call), std::move(request), std::move(tools)});
  bool queued = chat->call.renderers->post([chat] { render_and_submit(*chat); });
  if (!queued)
    chat->call.res.send(
      error_response(detail_error(503, "the server is busy: too many chats wait to be rendered")));
}

} // namespace conch::transports::openai
