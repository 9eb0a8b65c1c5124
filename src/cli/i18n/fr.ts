/**
 * The CLI's words in French (`--lang fr`).
 *
 * @module
 */
import type { CliMessages } from './messages.js';

/** Everything the CLI says, in French. */
export const FR: CliMessages = {
  thinking: 'réflexion',
  stopping: 'Arrêt de l’exécution… (Ctrl-C à nouveau pour quitter tout de suite)',
  steps: { one: 'étape', other: 'étapes' },
  singular: (count) => count === 0 || count === 1,
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
  traceWriteFailed: 'la trace n’a pas pu être écrite : {detail}. L’exécution continue sans elle.',
  inputEnded:
    'l’entrée est terminée (l’entrée standard est fermée), personne ne peut donc répondre à l’outil human',
  stoppingBecause: '{reason} ; arrêt de l’exécution.',
  runFailed: 'l’exécution a échoué : {detail}',
  debugHint: '(définissez TAOLOOP_DEBUG=1 pour voir la pile d’appels)',
  emptyQuestion: 'la question est vide. Exemple : taoloop {command} "Combien font 20 * 12 * 7 ?"',
  noModel: 'aucun modèle n’est configuré, et le modèle local intégré n’est pas disponible : {detail}',
  noLlamaCpp: 'il lui faut node-llama-cpp, qui n’est pas installé : lancez `{command}`',
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
  errors: {
    inConfig: 'le champ "{field}" du fichier de configuration {file}',
    unknownTool: 'outil inconnu {names} dans {where}. Disponibles : {available}.',
    noTool: '{where} ne désigne aucun outil{given}. Disponibles : {available}.',
    docsNeedsSearch: '{where} ne sert qu’à l’outil search ; ajoutez search à --tools.',
    rootNeedsTool: '{where} ne sert qu’aux outils read_file et run_tests ; ajoutez l’un d’eux à --tools.',
    wikiCorpusNeedsWikipedia: '{where} ne sert qu’à l’outil wikipedia ; ajoutez wikipedia à --tools.',
    searchNeedsDocs: 'l’outil search a besoin d’un dossier de documents : ajoutez --docs DOSSIER.',
    readFileNeedsRoot: 'read_file a besoin du dossier qu’il peut lire : ajoutez --root DOSSIER.',
    runTestsNeedsRoot: 'run_tests a besoin du dossier du projet : ajoutez --root DOSSIER.',
    allowNotATool: '--allow {names} : ce n’est pas un outil de cette exécution. Ses outils : {tools}.',
    maxCostNeedsPrice:
      '--max-cost a besoin du prix de {model}, que taoloop ne connaît pas : passez --price ENTRÉE/SORTIE en dollars (USD) par million de jetons d’entrée/sortie (par exemple --price 0.15/0.60), ou ajoutez-le aux "prices" du fichier de configuration.',
    configMissing: 'le fichier de configuration {file} n’existe pas.',
    badConfig: 'fichier de configuration incorrect {file} :\n  {problems}',
    traceNotFound:
      'aucune trace "{ref}" : ce n’est pas un fichier, et aucune exécution n’a cet identifiant dans {folder} (voir taoloop runs).',
  },
};
