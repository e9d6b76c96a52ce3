/** [binding key, routing key, matches]: RabbitMQ's tutorial 5 and the edges of its word split. */
export declare const TOPIC_CASES: [string, string, boolean][];
