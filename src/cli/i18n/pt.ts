/**
 * The CLI's words in Portuguese (`--lang pt`).
 *
 * @module
 */
import type { CliMessages } from './messages.js';

/** Everything the CLI says, in Portuguese. */
export const PT: CliMessages = {
  thinking: 'pensando',
  stopping: 'Parando a execução… (Ctrl-C de novo para sair já)',
  steps: { one: 'passo', other: 'passos' },
  singular: (count) => count === 1,
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
  traceWriteFailed: 'o registro não pôde ser gravado: {detail}. A execução continua sem ele.',
  inputEnded:
    'a entrada terminou (a entrada padrão está fechada), então ninguém pode responder à ferramenta human',
  stoppingBecause: '{reason}; parando a execução.',
  runFailed: 'a execução falhou: {detail}',
  debugHint: '(defina TAOLOOP_DEBUG=1 para ver a pilha de chamadas)',
  emptyQuestion: 'a pergunta está vazia. Exemplo: taoloop {command} "Quanto é 20 * 12 * 7?"',
  noModel: 'nenhum modelo está configurado, e o modelo local embutido não está disponível: {detail}',
  noLlamaCpp: 'ele precisa do node-llama-cpp, que não está instalado: execute `{command}`',
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
  errors: {
    inConfig: 'campo "{field}" do arquivo de configuração {file}',
    unknownTool: 'ferramenta desconhecida {names} ({where}). Disponíveis: {available}.',
    noTool: 'nenhuma ferramenta indicada ({where}){given}. Disponíveis: {available}.',
    docsNeedsSearch:
      'a pasta de documentos ({where}) só é usada pela ferramenta search; acrescente search a --tools.',
    rootNeedsTool:
      'a pasta ({where}) só é usada pelas ferramentas read_file e run_tests; acrescente uma delas a --tools.',
    wikiCorpusNeedsWikipedia:
      'o corpus da Wikipedia ({where}) só é usado pela ferramenta wikipedia; acrescente wikipedia a --tools.',
    searchNeedsDocs: 'a ferramenta search precisa de uma pasta de documentos: acrescente --docs PASTA.',
    readFileNeedsRoot: 'read_file precisa da pasta que pode ler: acrescente --root PASTA.',
    runTestsNeedsRoot: 'run_tests precisa da pasta do projeto: acrescente --root PASTA.',
    allowNotATool: '--allow {names}: não é uma ferramenta desta execução. Suas ferramentas: {tools}.',
    maxCostNeedsPrice:
      '--max-cost precisa do preço de {model}, e o taoloop não o conhece: passe --price ENTRADA/SAÍDA em dólares (USD) por milhão de tokens de entrada/saída (por exemplo --price 0.15/0.60), ou acrescente-o a "prices" no arquivo de configuração.',
    configMissing: 'o arquivo de configuração {file} não existe.',
    badConfig: 'arquivo de configuração inválido {file}:\n  {problems}',
    traceNotFound:
      'nenhum registro "{ref}": não é um arquivo, e nenhuma execução tem esse id em {folder} (veja taoloop runs).',
  },
};
