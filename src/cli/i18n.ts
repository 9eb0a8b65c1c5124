/**
 * The CLI's words in each `--lang`: messages to the person, the human tool's and human model's prompts,
 * and a translated summary of the format rules for the model. The system prompt itself is rendered in
 * English prose by `src/react/prompt.ts` (with translated labels); `instructions` restates its rules in
 * the run's language so a model prompted in Portuguese, French or Indonesian stays in that language.
 *
 * @module
 */
import type { StopReason } from '../agent/types.js';
import type { LabelLanguage } from '../react/labels.js';

/** Everything the CLI says, in one language. */
export interface CliMessages {
  /** Spinner text while the model works. */
  thinking: string;
  /** After the first Ctrl-C. */
  stopping: string;
  steps: string;
  tokens: string;
  tokensUnknown: string;
  costUnknown: string;
  /** Before the trace file's path. */
  trace: string;
  /** Why a run ended without an answer; `{detail}` is replaced by the result's error. */
  noAnswer: Record<Exclude<StopReason, 'answered'>, string>;
  /** The run's status in the footer, by stop reason. */
  status: Record<StopReason, string>;
  /** The footer's token counts: `{in}` input and `{out}` output tokens. */
  tokenCounts: string;
  /** `{detail}` of `noAnswer.budget` when the result says nothing more. */
  budgetDetail: string;
  /** `{detail}` of `noAnswer.budget` for the token budget: `{used}`, `{max}`, `{next}` tokens. */
  budgetTokens: string;
  /** `{detail}` of `noAnswer.budget` for `--max-cost`: `{spent}`, `{max}`, `{next}` in USD (`$0.01`). */
  budgetCost: string;
  /** `{detail}` of `noAnswer.budget` for `--timeout`: `{seconds}`. */
  budgetTime: string;
  /** `{detail}` of `noAnswer.error` when the result says nothing more. */
  failedDetail: string;
  /** A rejected tool call; `{reason}`. */
  rejected: string;
  /** `{reason}` of `rejected` when the person gave none. */
  byTheUser: string;
  /** A tool call approved with an edited input; `{input}`. */
  editedInput: string;
  /** A model that failed before a fallback took over; `{model}`, `{error}`. */
  modelFailed: string;
  /** The fallback taking over; `{what}` (the failure), `{model}` (the next model). */
  tryingNext: string;
  /** A retry of a model call; `{retry}`, `{max}` (the most retries), `{error}`, `{waited}` (`1.0 s`). */
  modelRetry: string;
  /** {@link CliMessages.modelRetry} when the most retries is unknown; `{retry}`, `{error}`, `{waited}`. */
  modelRetryOpen: string;
  /** Before the quoted text of a turn that could not be used. */
  unusableTurn: string;
  /** After a turn whose invented observation was thrown away. */
  droppedObservation: string;
  /** The approval prompt at the terminal. */
  approval: ApprovalMessages;
  /** The default trace location cannot be written; `{detail}`. */
  noTrace: string;
  /** `--trace FILE` cannot be written; `{file}`, `{detail}`. */
  cannotWriteTrace: string;
  /** The human tool's input ended: the reason the run stops (in the result and on screen). */
  inputEnded: string;
  /** Said when the run stops for `inputEnded`; `{reason}`. */
  stoppingBecause: string;
  /** An unexpected error ended the run; `{detail}`. */
  runFailed: string;
  /** After `runFailed`, unless `TAOLOOP_DEBUG` is set. */
  debugHint: string;
  /** An empty question; `{command}` is run or ask. */
  emptyQuestion: string;
  /** No model configured and the embedded one unavailable; `{detail}` says why, the setup help follows. */
  noModel: string;
  /** The ways to configure a model (after `noModel`), as `describeModelSetup` says them in English. */
  modelSetup?: string;
  /** `taoloop trace`: a trace that ends with a crash; `{error}`. */
  traceCrashed: string;
  /** `taoloop trace`: a trace that simply stops. */
  traceStops: string;
  /** The human tool: shown before the requested action. */
  humanAsks: string;
  /** The human tool: the question the person answers. */
  humanObserved: string;
  /** The human tool's description, as the model reads it. */
  humanToolDescription: string;
  /** The human model: shown once, above the prompt the model would see. */
  humanModelIntro: string;
  /** The human model: shown before each turn the person types. */
  humanModelTurn: string;
  /** The format rules in this language, appended to the system prompt; absent for English. */
  instructions?: string;
  /** For `taoloop ask`: how to use the person, appended to the system prompt. */
  askInstructions: string;
  /** `taoloop chat`; `{id}` is the conversation id, `{command}` what was typed. */
  chat: ChatMessages;
  /** Commander's errors about the command line (unknown option, missing argument, ...). */
  usage: UsageMessages;
}

/** The approval prompt: `{action}`, `{effects}` and `{tool}` are filled in. */
export interface ApprovalMessages {
  /** Above the prompt. */
  wants: string;
  /** The question. */
  ask: string;
  /** Asking for the edited input. */
  newInput: string;
  /** After an answer that is none of the accepted words. */
  again: string;
  /** Accepted answers, lower case; English `y`/`yes`, `n`/`no`, `e`/`edit` are always accepted too. */
  yes: readonly string[];
  no: readonly string[];
  edit: readonly string[];
  /** The rejection when there is no terminal to ask at (the model reads it too). */
  noTerminal: string;
}

/**
 * Commander's errors about the command line, by error code (`src/cli/usage-errors.ts` reads the names out
 * of commander's English message). `{option}` is the option's flags as the help shows them
 * (`--max-steps <n>`), `{command}` and `{argument}` names, `{value}` what was given, `{detail}` why it
 * is refused (`choices` or one of the option parsers' reasons). English is printed as commander writes it;
 * the English entries say the same and are the patterns the parsers' reasons are recognised by.
 */
export interface UsageMessages {
  /** The word before each message, as commander's `error:`. */
  error: string;
  /** `commander.unknownOption`. */
  unknownOption: string;
  /** `commander.unknownCommand`. */
  unknownCommand: string;
  /** `commander.missingArgument`. */
  missingArgument: string;
  /** `commander.optionMissingArgument`: a flag given without its value. */
  optionMissingArgument: string;
  /** `commander.invalidArgument` for a flag's value. */
  invalidOptionValue: string;
  /** `commander.invalidArgument` for a value from an environment variable `{env}`. */
  invalidEnvValue: string;
  /** `commander.invalidArgument` for a command's argument. */
  invalidArgumentValue: string;
  /** `commander.excessArguments`: `{expected}` and `{got}` are counts. */
  excessArguments: string;
  /** Commander's suggestion for an unknown option or command: one `{name}`. */
  didYouMean: string;
  /** Commander's suggestion: several `{names}`, comma-separated. */
  didYouMeanOneOf: string;
  /** `{detail}` of a value that is none of the `{choices}`. */
  choices: string;
  /** `{detail}`s of the option parsers in `src/cli/options.ts`; `{value}`. */
  wholeNumber: string;
  port: string;
  usd: string;
  price: string;
  duration: string;
  /** After the message. */
  helpHint: string;
}

/** What `taoloop chat` says. */
export interface ChatMessages {
  /** When a conversation starts. */
  intro: string;
  /** After `/new`. */
  newConversation: string;
  /** After a line starting with `/` that is no command. */
  unknownCommand: string;
  /** After Ctrl-C at the prompt (no run to stop). */
  howToLeave: string;
  /** When the person leaves a conversation that has questions in it. */
  followUp: string;
}

const EN: CliMessages = {
  thinking: 'thinking',
  stopping: 'Stopping the run… (press Ctrl-C again to quit at once)',
  steps: 'steps',
  tokens: 'tokens',
  tokensUnknown: 'tokens unknown',
  costUnknown: 'cost unknown (no price for this model: --price IN/OUT)',
  trace: 'trace:',
  noAnswer: {
    max_steps: 'No answer: the step limit was reached (raise it with --max-steps).',
    format_errors: 'No answer: the model kept writing turns that do not follow the Thought/Action format.',
    repeated_action: 'No answer: the model kept repeating the same action with the same result.',
    budget: 'No answer: the run hit its budget ({detail}).',
    aborted: 'No answer: the run was aborted.',
    error: 'No answer: {detail}',
    paused: 'No answer yet: the run is paused, waiting for an approval.',
  },
  status: {
    answered: 'answered',
    max_steps: 'max_steps',
    format_errors: 'format_errors',
    repeated_action: 'repeated_action',
    budget: 'budget',
    aborted: 'aborted',
    error: 'error',
    paused: 'paused',
  },
  tokenCounts: '{in} in / {out} out tokens',
  budgetDetail: 'tokens, cost or time',
  budgetTokens: 'token budget: {used} of {max} tokens used, and the next call needs about {next} more.',
  budgetCost: "cost budget: {spent} of {max} spent, and the next call's input costs about {next}.",
  budgetTime: '--timeout: the run took longer than {seconds} s.',
  failedDetail: 'the run failed.',
  rejected: '(rejected: {reason})',
  byTheUser: 'by the user',
  editedInput: '(approved with edited input: {input})',
  modelFailed: '{model} failed: {error}',
  tryingNext: '({what}; trying {model})',
  modelRetry: 'retry {retry} of {max} after {error} (waited {waited})',
  modelRetryOpen: 'retry {retry} after {error} (waited {waited})',
  unusableTurn: '(unusable model turn)',
  droppedObservation: '(dropped an Observation the model wrote itself)',
  approval: {
    wants: 'The model wants to run {action} (effects: {effects}).',
    ask: 'Allow it? [y]es / [n]o / [e]dit: ',
    newInput: 'New input for {tool}: ',
    again: 'Please answer y, n or e.',
    yes: ['y', 'yes'],
    no: ['n', 'no'],
    edit: ['e', 'edit'],
    noTerminal: 'no terminal to ask for approval of {tool} ({effects}); rerun with --allow {tool} or --yes',
  },
  noTrace: 'not keeping a trace of this run ({detail}); use --trace FILE.',
  cannotWriteTrace: 'cannot write the trace to {file}: {detail}',
  inputEnded: 'the input ended (standard input is closed), so nobody can answer the human tool',
  stoppingBecause: '{reason}; stopping the run.',
  runFailed: 'the run failed: {detail}',
  debugHint: '(set TAOLOOP_DEBUG=1 to see the stack trace)',
  emptyQuestion: 'the question is empty. Example: taoloop {command} "What is 20 * 12 * 7?"',
  noModel: 'no model is configured, and the embedded local model is not available: {detail}',
  traceCrashed: 'The run crashed or was stopped at once: {error}',
  traceStops: '(the trace stops here: the run was killed, or is still running)',
  humanAsks: 'The agent asks you to:',
  humanObserved: 'What did you observe?',
  humanToolDescription:
    'Asks the person at the terminal to perform an action or check something, and returns what they observed. Input: what to do or check.',
  humanModelIntro:
    'You are the model. This is the prompt it would see; write each turn as it should (the program runs the tools).',
  humanModelTurn:
    'Your turn: type Thought and Action lines (or Thought and Answer); an empty line ends the turn.',
  askInstructions:
    'The person at the terminal performs each action you ask for with the human tool and tells you what they observed. Ask for one simple thing to do or check at a time, and answer as soon as the observations support it.',
  chat: {
    intro:
      'Conversation {id}. Ask a question; /new starts a new conversation, /exit or Ctrl-D leaves, Ctrl-C stops an answer.',
    newConversation: 'New conversation {id}.',
    unknownCommand: 'Unknown command {command}: /new starts a new conversation, /exit leaves.',
    howToLeave: '(/exit or Ctrl-D leaves)',
    followUp: 'Follow up later: taoloop run --continue {id} "..."',
  },
  usage: {
    error: 'error',
    unknownOption: "unknown option '{option}'",
    unknownCommand: "unknown command '{command}'",
    missingArgument: "missing required argument '{argument}'",
    optionMissingArgument: "option '{option}' argument missing",
    invalidOptionValue: "option '{option}' argument '{value}' is invalid. {detail}",
    invalidEnvValue: "option '{option}' value '{value}' from env '{env}' is invalid. {detail}",
    invalidArgumentValue: "command-argument value '{value}' is invalid for argument '{argument}'. {detail}",
    excessArguments: "too many arguments for '{command}'. Expected {expected} but got {got}.",
    didYouMean: '(Did you mean {name}?)',
    didYouMeanOneOf: '(Did you mean one of {names}?)',
    choices: 'Allowed choices are {choices}.',
    wholeNumber: 'expected a whole number ≥ 1, got "{value}".',
    port: 'expected a port from 0 to 65535, got "{value}".',
    usd: 'expected an amount in USD above 0 such as 0.50, got "{value}".',
    price:
      'expected the input and output prices in USD per million tokens, as IN/OUT such as 0.15/0.60, got "{value}".',
    duration: 'expected a duration such as 90s, 2m, 500ms or a number of seconds, got "{value}".',
    helpHint: '(run with --help for usage)',
  },
};

const PT: CliMessages = {
  thinking: 'pensando',
  stopping: 'Parando a execução… (Ctrl-C de novo para sair já)',
  steps: 'passos',
  tokens: 'tokens',
  tokensUnknown: 'tokens desconhecidos',
  costUnknown: 'custo desconhecido (sem preço para este modelo: --price ENTRADA/SAÍDA)',
  trace: 'registro:',
  noAnswer: {
    max_steps: 'Sem resposta: o limite de passos foi atingido (aumente-o com --max-steps).',
    format_errors: 'Sem resposta: o modelo continuou escrevendo turnos fora do formato Pensamento/Ação.',
    repeated_action: 'Sem resposta: o modelo repetiu a mesma ação com o mesmo resultado.',
    budget: 'Sem resposta: a execução atingiu o orçamento ({detail}).',
    aborted: 'Sem resposta: a execução foi interrompida.',
    error: 'Sem resposta: {detail}',
    paused: 'Ainda sem resposta: a execução está em pausa, à espera de uma aprovação.',
  },
  status: {
    answered: 'respondida',
    max_steps: 'limite de passos',
    format_errors: 'erros de formato',
    repeated_action: 'ação repetida',
    budget: 'orçamento esgotado',
    aborted: 'interrompida',
    error: 'erro',
    paused: 'em pausa',
  },
  tokenCounts: '{in} de entrada / {out} de saída (tokens)',
  budgetDetail: 'tokens, custo ou tempo',
  budgetTokens:
    'orçamento de tokens: {used} de {max} usados, e a próxima chamada precisa de cerca de {next} a mais.',
  budgetCost:
    'orçamento de custo: {spent} de {max} gastos, e a entrada da próxima chamada custa cerca de {next}.',
  budgetTime: '--timeout: a execução levou mais de {seconds} s.',
  failedDetail: 'a execução falhou.',
  rejected: '(recusada: {reason})',
  byTheUser: 'pelo usuário',
  editedInput: '(aprovada com a entrada editada: {input})',
  modelFailed: '{model} falhou: {error}',
  tryingNext: '({what}; tentando {model})',
  modelRetry: 'nova tentativa {retry} de {max} após {error} (esperou {waited})',
  modelRetryOpen: 'nova tentativa {retry} após {error} (esperou {waited})',
  unusableTurn: '(turno do modelo inutilizável)',
  droppedObservation: '(descartada uma Observação que o próprio modelo escreveu)',
  approval: {
    wants: 'O modelo quer executar {action} (efeitos: {effects}).',
    ask: 'Permitir? [s]im / [n]ão / [e]ditar: ',
    newInput: 'Nova entrada para {tool}: ',
    again: 'Responda s, n ou e.',
    yes: ['s', 'sim'],
    no: ['n', 'não', 'nao'],
    edit: ['e', 'editar'],
    noTerminal:
      'não há terminal para pedir a aprovação de {tool} ({effects}); execute de novo com --allow {tool} ou --yes',
  },
  noTrace: 'sem registro desta execução ({detail}); use --trace ARQUIVO.',
  cannotWriteTrace: 'não é possível gravar o registro em {file}: {detail}',
  inputEnded:
    'a entrada terminou (a entrada padrão está fechada), então ninguém pode responder à ferramenta human',
  stoppingBecause: '{reason}; parando a execução.',
  runFailed: 'a execução falhou: {detail}',
  debugHint: '(defina TAOLOOP_DEBUG=1 para ver a pilha de chamadas)',
  emptyQuestion: 'a pergunta está vazia. Exemplo: taoloop {command} "Quanto é 20 * 12 * 7?"',
  noModel: 'nenhum modelo está configurado, e o modelo local embutido não está disponível: {detail}',
  modelSetup: [
    'Escolha um modelo com --model <spec> ou a variável de ambiente TAOLOOP_MODEL:',
    '  --model openai-compatible:http://127.0.0.1:8080/v1#my-model   qualquer servidor compatível com OpenAI',
    '                                      (llama.cpp, vLLM, LM Studio; chave em TAOLOOP_API_KEY se preciso)',
    '  --model openai:gpt-4o-mini          com OPENAI_API_KEY definida (OPENAI_BASE_URL opcional)',
    '  --model anthropic:claude-3-5-haiku-latest   com ANTHROPIC_API_KEY definida',
    '  --model google:gemini-2.0-flash     com GOOGLE_GENERATIVE_AI_API_KEY definida',
    '  --model ollama:llama3.1             Ollama local (OLLAMA_BASE_URL, padrão http://127.0.0.1:11434/v1)',
    '  --model local:./model.gguf          um arquivo GGUF executado no processo (llama.cpp); local: sozinho',
    '                                      baixa uma vez o pequeno modelo padrão (Qwen2.5-1.5B-Instruct)',
    'Sem --model: TAOLOOP_MODEL, senão o primeiro provedor cuja chave de API está definida (OpenAI,',
    'Anthropic, Google), senão um Ollama local respondendo em 127.0.0.1:11434 (seu primeiro modelo), senão',
    'o modelo local embutido. `taoloop models` mostra o que está configurado e qual seria escolhido.',
  ].join('\n'),
  traceCrashed: 'A execução falhou ou foi parada de imediato: {error}',
  traceStops: '(o registro para aqui: a execução foi morta, ou ainda está em andamento)',
  humanAsks: 'O agente pede que você:',
  humanObserved: 'O que você observou?',
  humanToolDescription:
    'Pede à pessoa no terminal que faça uma ação ou verifique algo e devolve o que ela observou. Entrada: o que fazer ou verificar.',
  humanModelIntro:
    'Você é o modelo. Este é o prompt que ele veria; escreva cada turno como ele deveria (o programa executa as ferramentas).',
  humanModelTurn:
    'Sua vez: digite as linhas Pensamento e Ação (ou Pensamento e Resposta); uma linha vazia termina o turno.',
  instructions:
    'Escreva em português. Em cada turno, escreva um Pensamento e depois uma Ação no formato ferramenta[entrada], ou a Resposta quando souber. Escreva uma única Ação por turno e pare: o programa executa a ferramenta e responde com a Observação real. Nunca escreva a Observação você mesmo.',
  askInstructions:
    'A pessoa no terminal faz cada ação que você pedir com a ferramenta human e diz o que observou. Peça uma coisa simples de cada vez e responda assim que as observações permitirem.',
  chat: {
    intro:
      'Conversa {id}. Faça uma pergunta; /new começa uma nova conversa, /exit ou Ctrl-D sai, Ctrl-C interrompe uma resposta.',
    newConversation: 'Nova conversa {id}.',
    unknownCommand: 'Comando desconhecido {command}: /new começa uma nova conversa, /exit sai.',
    howToLeave: '(/exit ou Ctrl-D sai)',
    followUp: 'Para continuar depois: taoloop run --continue {id} "..."',
  },
  usage: {
    error: 'erro',
    unknownOption: "opção desconhecida '{option}'",
    unknownCommand: "comando desconhecido '{command}'",
    missingArgument: "falta o argumento obrigatório '{argument}'",
    optionMissingArgument: "falta o valor da opção '{option}'",
    invalidOptionValue: "o valor '{value}' da opção '{option}' não é válido. {detail}",
    invalidEnvValue: "o valor '{value}' da opção '{option}' vindo de '{env}' não é válido. {detail}",
    invalidArgumentValue: "o valor '{value}' do argumento '{argument}' não é válido. {detail}",
    excessArguments: "argumentos demais para '{command}': esperados {expected}, recebidos {got}.",
    didYouMean: '(Você quis dizer {name}?)',
    didYouMeanOneOf: '(Você quis dizer uma destas: {names}?)',
    choices: 'Valores aceitos: {choices}.',
    wholeNumber: 'esperava um número inteiro ≥ 1, recebeu "{value}".',
    port: 'esperava uma porta de 0 a 65535, recebeu "{value}".',
    usd: 'esperava um valor em dólares (USD) maior que 0, como 0.50, recebeu "{value}".',
    price:
      'esperava os preços de entrada e saída em dólares (USD) por milhão de tokens, como ENTRADA/SAÍDA, por exemplo 0.15/0.60, recebeu "{value}".',
    duration: 'esperava uma duração como 90s, 2m, 500ms ou um número de segundos, recebeu "{value}".',
    helpHint: '(use --help para ver como usar)',
  },
};

const FR: CliMessages = {
  thinking: 'réflexion',
  stopping: 'Arrêt de l’exécution… (Ctrl-C à nouveau pour quitter tout de suite)',
  steps: 'étapes',
  tokens: 'jetons',
  tokensUnknown: 'jetons inconnus',
  costUnknown: 'coût inconnu (pas de prix pour ce modèle : --price ENTRÉE/SORTIE)',
  trace: 'trace :',
  noAnswer: {
    max_steps: 'Pas de réponse : la limite d’étapes est atteinte (augmentez-la avec --max-steps).',
    format_errors:
      'Pas de réponse : le modèle écrit des tours qui ne suivent pas le format Réflexion/Action.',
    repeated_action: 'Pas de réponse : le modèle répète la même action avec le même résultat.',
    budget: 'Pas de réponse : l’exécution a atteint son budget ({detail}).',
    aborted: 'Pas de réponse : l’exécution a été interrompue.',
    error: 'Pas de réponse : {detail}',
    paused: 'Pas encore de réponse : l’exécution est en pause, en attente d’une approbation.',
  },
  status: {
    answered: 'répondu',
    max_steps: 'limite d’étapes',
    format_errors: 'erreurs de format',
    repeated_action: 'action répétée',
    budget: 'budget épuisé',
    aborted: 'interrompue',
    error: 'erreur',
    paused: 'en pause',
  },
  tokenCounts: '{in} en entrée / {out} en sortie (jetons)',
  budgetDetail: 'jetons, coût ou durée',
  budgetTokens:
    'budget de jetons : {used} sur {max} utilisés, et le prochain appel en demande environ {next} de plus.',
  budgetCost:
    'budget de coût : {spent} sur {max} dépensés, et l’entrée du prochain appel coûte environ {next}.',
  budgetTime: '--timeout : l’exécution a duré plus de {seconds} s.',
  failedDetail: 'l’exécution a échoué.',
  rejected: '(refusé : {reason})',
  byTheUser: 'par l’utilisateur',
  editedInput: '(approuvé avec l’entrée modifiée : {input})',
  modelFailed: '{model} a échoué : {error}',
  tryingNext: '({what} ; essai de {model})',
  modelRetry: 'nouvel essai {retry} sur {max} après {error} (attente de {waited})',
  modelRetryOpen: 'nouvel essai {retry} après {error} (attente de {waited})',
  unusableTurn: '(tour du modèle inutilisable)',
  droppedObservation: '(Observation écrite par le modèle lui-même écartée)',
  approval: {
    wants: 'Le modèle veut exécuter {action} (effets : {effects}).',
    ask: 'L’autoriser ? [o]ui / [n]on / [m]odifier : ',
    newInput: 'Nouvelle entrée pour {tool} : ',
    again: 'Répondez o, n ou m.',
    yes: ['o', 'oui'],
    no: ['n', 'non'],
    edit: ['m', 'modifier'],
    noTerminal:
      'aucun terminal pour demander l’approbation de {tool} ({effects}) ; relancez avec --allow {tool} ou --yes',
  },
  noTrace: 'pas de trace pour cette exécution ({detail}) ; utilisez --trace FICHIER.',
  cannotWriteTrace: 'impossible d’écrire la trace dans {file} : {detail}',
  inputEnded:
    'l’entrée est terminée (l’entrée standard est fermée), personne ne peut donc répondre à l’outil human',
  stoppingBecause: '{reason} ; arrêt de l’exécution.',
  runFailed: 'l’exécution a échoué : {detail}',
  debugHint: '(définissez TAOLOOP_DEBUG=1 pour voir la pile d’appels)',
  emptyQuestion: 'la question est vide. Exemple : taoloop {command} "Combien font 20 * 12 * 7 ?"',
  noModel: 'aucun modèle n’est configuré, et le modèle local intégré n’est pas disponible : {detail}',
  modelSetup: [
    'Configurez un modèle avec --model <spec> ou la variable d’environnement TAOLOOP_MODEL :',
    '  --model openai-compatible:http://127.0.0.1:8080/v1#my-model   tout serveur compatible OpenAI',
    '                                      (llama.cpp, vLLM, LM Studio ; clé dans TAOLOOP_API_KEY si besoin)',
    '  --model openai:gpt-4o-mini          avec OPENAI_API_KEY définie (OPENAI_BASE_URL facultative)',
    '  --model anthropic:claude-3-5-haiku-latest   avec ANTHROPIC_API_KEY définie',
    '  --model google:gemini-2.0-flash     avec GOOGLE_GENERATIVE_AI_API_KEY définie',
    '  --model ollama:llama3.1             Ollama local (OLLAMA_BASE_URL, par défaut http://127.0.0.1:11434/v1)',
    '  --model local:./model.gguf          un fichier GGUF exécuté dans le processus (llama.cpp) ; local: seul',
    '                                      télécharge une fois le petit modèle par défaut (Qwen2.5-1.5B-Instruct)',
    'Sans --model : TAOLOOP_MODEL, sinon le premier fournisseur dont la clé d’API est définie (OpenAI,',
    'Anthropic, Google), sinon un Ollama local qui répond sur 127.0.0.1:11434 (son premier modèle), sinon',
    'le modèle local intégré. `taoloop models` montre ce qui est configuré et lequel serait choisi.',
  ].join('\n'),
  traceCrashed: 'L’exécution a planté ou a été arrêtée net : {error}',
  traceStops: '(la trace s’arrête ici : l’exécution a été tuée, ou est encore en cours)',
  humanAsks: 'L’agent vous demande de :',
  humanObserved: 'Qu’avez-vous observé ?',
  humanToolDescription:
    'Demande à la personne devant le terminal de faire une action ou de vérifier quelque chose, et renvoie ce qu’elle a observé. Entrée : quoi faire ou vérifier.',
  humanModelIntro:
    'Vous êtes le modèle. Voici le prompt qu’il verrait ; écrivez chaque tour comme il le devrait (le programme exécute les outils).',
  humanModelTurn:
    'À vous : tapez les lignes Réflexion et Action (ou Réflexion et Réponse) ; une ligne vide termine le tour.',
  instructions:
    'Écris en français. À chaque tour, écris une Réflexion puis une Action au format outil[entrée], ou la Réponse quand tu la connais. Écris une seule Action par tour puis arrête-toi : le programme exécute l’outil et répond avec la vraie Observation. N’écris jamais l’Observation toi-même.',
  askInstructions:
    'La personne devant le terminal fait chaque action que tu demandes avec l’outil human et te dit ce qu’elle a observé. Demande une seule chose simple à la fois et réponds dès que les observations le permettent.',
  chat: {
    intro:
      'Conversation {id}. Posez une question ; /new commence une nouvelle conversation, /exit ou Ctrl-D quitte, Ctrl-C arrête une réponse.',
    newConversation: 'Nouvelle conversation {id}.',
    unknownCommand: 'Commande inconnue {command} : /new commence une nouvelle conversation, /exit quitte.',
    howToLeave: '(/exit ou Ctrl-D pour quitter)',
    followUp: 'Pour continuer plus tard : taoloop run --continue {id} "..."',
  },
  usage: {
    error: 'erreur',
    unknownOption: "option inconnue '{option}'",
    unknownCommand: "commande inconnue '{command}'",
    missingArgument: "argument obligatoire manquant '{argument}'",
    optionMissingArgument: "il manque la valeur de l'option '{option}'",
    invalidOptionValue: "la valeur '{value}' de l'option '{option}' n'est pas valable. {detail}",
    invalidEnvValue:
      "la valeur '{value}' de l'option '{option}' venant de '{env}' n'est pas valable. {detail}",
    invalidArgumentValue: "la valeur '{value}' de l'argument '{argument}' n'est pas valable. {detail}",
    excessArguments: "trop d'arguments pour '{command}' : {expected} attendu(s), {got} reçu(s).",
    didYouMean: '(Vouliez-vous dire {name} ?)',
    didYouMeanOneOf: "(Vouliez-vous dire l'une de : {names} ?)",
    choices: 'Valeurs acceptées : {choices}.',
    wholeNumber: 'nombre entier ≥ 1 attendu, reçu "{value}".',
    port: 'port de 0 à 65535 attendu, reçu "{value}".',
    usd: 'montant en dollars (USD) supérieur à 0 attendu, par exemple 0.50, reçu "{value}".',
    price:
      'prix d\'entrée et de sortie en dollars (USD) par million de jetons attendus, sous la forme ENTRÉE/SORTIE, par exemple 0.15/0.60, reçu "{value}".',
    duration: 'durée attendue, par exemple 90s, 2m, 500ms ou un nombre de secondes, reçu "{value}".',
    helpHint: "(lancez avec --help pour l'aide)",
  },
};

const ID: CliMessages = {
  thinking: 'berpikir',
  stopping: 'Menghentikan proses… (tekan Ctrl-C lagi untuk langsung keluar)',
  steps: 'langkah',
  tokens: 'token',
  tokensUnknown: 'token tidak diketahui',
  costUnknown: 'biaya tidak diketahui (tidak ada harga untuk model ini: --price MASUK/KELUAR)',
  trace: 'jejak:',
  noAnswer: {
    max_steps: 'Tidak ada jawaban: batas langkah tercapai (naikkan dengan --max-steps).',
    format_errors:
      'Tidak ada jawaban: model terus menulis giliran yang tidak mengikuti format Pikiran/Tindakan.',
    repeated_action: 'Tidak ada jawaban: model terus mengulang tindakan yang sama dengan hasil yang sama.',
    budget: 'Tidak ada jawaban: proses mencapai batas anggaran ({detail}).',
    aborted: 'Tidak ada jawaban: proses dihentikan.',
    error: 'Tidak ada jawaban: {detail}',
    paused: 'Belum ada jawaban: proses dijeda, menunggu persetujuan.',
  },
  status: {
    answered: 'terjawab',
    max_steps: 'batas langkah',
    format_errors: 'kesalahan format',
    repeated_action: 'tindakan berulang',
    budget: 'anggaran habis',
    aborted: 'dihentikan',
    error: 'galat',
    paused: 'dijeda',
  },
  tokenCounts: '{in} masuk / {out} keluar (token)',
  budgetDetail: 'token, biaya atau waktu',
  budgetTokens:
    'anggaran token: {used} dari {max} terpakai, dan panggilan berikutnya perlu sekitar {next} lagi.',
  budgetCost: 'anggaran biaya: {spent} dari {max} terpakai, dan masukan panggilan berikutnya sekitar {next}.',
  budgetTime: '--timeout: proses berjalan lebih dari {seconds} detik.',
  failedDetail: 'proses gagal.',
  rejected: '(ditolak: {reason})',
  byTheUser: 'oleh pengguna',
  editedInput: '(disetujui dengan masukan yang diubah: {input})',
  modelFailed: '{model} gagal: {error}',
  tryingNext: '({what}; mencoba {model})',
  modelRetry: 'percobaan ulang {retry} dari {max} setelah {error} (menunggu {waited})',
  modelRetryOpen: 'percobaan ulang {retry} setelah {error} (menunggu {waited})',
  unusableTurn: '(giliran model tidak dapat dipakai)',
  droppedObservation: '(Observasi yang ditulis model sendiri dibuang)',
  approval: {
    wants: 'Model ingin menjalankan {action} (efek: {effects}).',
    ask: 'Izinkan? [y]a / [t]idak / [u]bah: ',
    newInput: 'Masukan baru untuk {tool}: ',
    again: 'Jawab y, t atau u.',
    yes: ['y', 'ya'],
    no: ['t', 'tidak'],
    edit: ['u', 'ubah'],
    noTerminal:
      'tidak ada terminal untuk meminta persetujuan {tool} ({effects}); jalankan lagi dengan --allow {tool} atau --yes',
  },
  noTrace: 'jejak proses ini tidak disimpan ({detail}); gunakan --trace BERKAS.',
  cannotWriteTrace: 'tidak dapat menulis jejak ke {file}: {detail}',
  inputEnded: 'masukan berakhir (masukan standar tertutup), jadi tidak ada yang bisa menjawab alat human',
  stoppingBecause: '{reason}; menghentikan proses.',
  runFailed: 'proses gagal: {detail}',
  debugHint: '(setel TAOLOOP_DEBUG=1 untuk melihat jejak tumpukan)',
  emptyQuestion: 'pertanyaannya kosong. Contoh: taoloop {command} "Berapa 20 * 12 * 7?"',
  noModel: 'tidak ada model yang dikonfigurasi, dan model lokal bawaan tidak tersedia: {detail}',
  modelSetup: [
    'Atur model dengan --model <spec> atau variabel lingkungan TAOLOOP_MODEL:',
    '  --model openai-compatible:http://127.0.0.1:8080/v1#my-model   server apa pun yang kompatibel dengan OpenAI',
    '                                      (llama.cpp, vLLM, LM Studio; kunci di TAOLOOP_API_KEY bila perlu)',
    '  --model openai:gpt-4o-mini          dengan OPENAI_API_KEY disetel (OPENAI_BASE_URL opsional)',
    '  --model anthropic:claude-3-5-haiku-latest   dengan ANTHROPIC_API_KEY disetel',
    '  --model google:gemini-2.0-flash     dengan GOOGLE_GENERATIVE_AI_API_KEY disetel',
    '  --model ollama:llama3.1             Ollama lokal (OLLAMA_BASE_URL, bawaan http://127.0.0.1:11434/v1)',
    '  --model local:./model.gguf          berkas GGUF yang dijalankan di dalam proses (llama.cpp); local: saja',
    '                                      mengunduh model kecil bawaan (Qwen2.5-1.5B-Instruct) sekali',
    'Tanpa --model: TAOLOOP_MODEL, jika tidak penyedia pertama yang kunci API-nya disetel (OpenAI,',
    'Anthropic, Google), jika tidak Ollama lokal yang menjawab di 127.0.0.1:11434 (model pertamanya), jika',
    'tidak model lokal bawaan. `taoloop models` menunjukkan apa yang dikonfigurasi dan mana yang akan dipilih.',
  ].join('\n'),
  traceCrashed: 'Proses mogok atau langsung dihentikan: {error}',
  traceStops: '(jejak berhenti di sini: proses dimatikan, atau masih berjalan)',
  humanAsks: 'Agen meminta Anda untuk:',
  humanObserved: 'Apa yang Anda amati?',
  humanToolDescription:
    'Meminta orang di terminal melakukan suatu tindakan atau memeriksa sesuatu, lalu mengembalikan apa yang mereka amati. Masukan: apa yang harus dilakukan atau diperiksa.',
  humanModelIntro:
    'Anda adalah modelnya. Ini prompt yang akan dilihat model; tulis setiap giliran seperti seharusnya (program menjalankan alatnya).',
  humanModelTurn:
    'Giliran Anda: ketik baris Pikiran dan Tindakan (atau Pikiran dan Jawaban); baris kosong mengakhiri giliran.',
  instructions:
    'Tulis dalam bahasa Indonesia. Di setiap giliran, tulis satu Pikiran lalu satu Tindakan dengan format alat[masukan], atau Jawaban bila sudah tahu. Tulis hanya satu Tindakan per giliran lalu berhenti: program menjalankan alat dan membalas dengan Observasi yang sebenarnya. Jangan pernah menulis Observasi sendiri.',
  askInstructions:
    'Orang di terminal melakukan setiap tindakan yang Anda minta dengan alat human dan memberi tahu apa yang mereka amati. Minta satu hal sederhana setiap kali, dan jawab segera setelah pengamatan cukup.',
  chat: {
    intro:
      'Percakapan {id}. Ajukan pertanyaan; /new memulai percakapan baru, /exit atau Ctrl-D keluar, Ctrl-C menghentikan jawaban.',
    newConversation: 'Percakapan baru {id}.',
    unknownCommand: 'Perintah tidak dikenal {command}: /new memulai percakapan baru, /exit keluar.',
    howToLeave: '(/exit atau Ctrl-D untuk keluar)',
    followUp: 'Lanjutkan nanti: taoloop run --continue {id} "..."',
  },
  usage: {
    error: 'kesalahan',
    unknownOption: "opsi tidak dikenal '{option}'",
    unknownCommand: "perintah tidak dikenal '{command}'",
    missingArgument: "argumen wajib '{argument}' tidak diberikan",
    optionMissingArgument: "opsi '{option}' tidak diberi nilai",
    invalidOptionValue: "nilai '{value}' untuk opsi '{option}' tidak sah. {detail}",
    invalidEnvValue: "nilai '{value}' untuk opsi '{option}' dari '{env}' tidak sah. {detail}",
    invalidArgumentValue: "nilai '{value}' untuk argumen '{argument}' tidak sah. {detail}",
    excessArguments: "terlalu banyak argumen untuk '{command}': diharapkan {expected}, diterima {got}.",
    didYouMean: '(Maksud Anda {name}?)',
    didYouMeanOneOf: '(Maksud Anda salah satu dari {names}?)',
    choices: 'Nilai yang diterima: {choices}.',
    wholeNumber: 'diharapkan bilangan bulat ≥ 1, diterima "{value}".',
    port: 'diharapkan port dari 0 sampai 65535, diterima "{value}".',
    usd: 'diharapkan jumlah dalam dolar (USD) di atas 0 seperti 0.50, diterima "{value}".',
    price:
      'diharapkan harga masukan dan keluaran dalam dolar (USD) per sejuta token, sebagai MASUK/KELUAR seperti 0.15/0.60, diterima "{value}".',
    duration: 'diharapkan durasi seperti 90s, 2m, 500ms atau jumlah detik, diterima "{value}".',
    helpHint: '(jalankan dengan --help untuk cara pakai)',
  },
};

/** The CLI's messages, by `--lang` code. */
export const CLI_MESSAGES: Readonly<Record<LabelLanguage, CliMessages>> = { en: EN, pt: PT, fr: FR, id: ID };

/** Why a run ended without an answer, in `messages`' language. */
export function noAnswerMessage(
  messages: CliMessages,
  status: Exclude<StopReason, 'answered'>,
  detail: string | undefined,
): string {
  if (status === 'budget') {
    // The budget's template closes `({detail}).` itself: the detail's own full stop would double it.
    return fill(messages.noAnswer.budget, { detail: (detail ?? messages.budgetDetail).replace(/\.$/, '') });
  }
  return fill(messages.noAnswer[status], { detail: detail ?? messages.failedDetail });
}

/**
 * The library's budget message (`token budget: …`, `cost budget: …`, `time budget: …`) in `messages`'
 * language; any other text unchanged.
 */
export function budgetDetail(messages: CliMessages, error: string): string {
  const tokens =
    /^token budget: (\d+) of (\d+) tokens used, and the next call needs about (\d+) more\.$/.exec(error);
  if (tokens) return fill(messages.budgetTokens, { used: tokens[1]!, max: tokens[2]!, next: tokens[3]! });
  const cost =
    /^cost budget: \$([\d.]+) of \$([\d.]+) spent, and the next call's input costs about \$([\d.]+)\.$/.exec(
      error,
    );
  if (cost)
    return fill(messages.budgetCost, { spent: `$${cost[1]}`, max: `$${cost[2]}`, next: `$${cost[3]}` });
  const time = /^time budget: the run took longer than (\d+) ms\.$/.exec(error);
  if (time) return fill(messages.budgetTime, { seconds: Number(time[1]) / 1000 });
  return error;
}

/** `template` with each `{name}` replaced by `values[name]` (names not given stay as they are). */
export function fill(template: string, values: Readonly<Record<string, string | number>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(values, name) ? String(values[name]) : whole,
  );
}

/**
 * The `--lang` of a command line, for messages printed before or around a run (an unexpected error):
 * `--lang X` or `--lang=X` in `argv`, else `TAOLOOP_LANG`, else English; an unknown code is English.
 */
export function languageOf(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): LabelLanguage {
  let code: string | undefined = env.TAOLOOP_LANG;
  for (const [i, arg] of argv.entries()) {
    if (arg === '--') break;
    if (arg === '--lang') code = argv[i + 1];
    else if (arg.startsWith('--lang=')) code = arg.slice('--lang='.length);
  }
  return code !== undefined && Object.hasOwn(CLI_MESSAGES, code) ? (code as LabelLanguage) : 'en';
}
