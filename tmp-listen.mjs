import amqp from 'amqplib';
const conn = await amqp.connect('amqp://guest:guest@127.0.0.1:5672');
const ch = await conn.createChannel();
await ch.assertExchange('celeryev', 'topic', { durable: true });
const q = await ch.assertQueue('', { exclusive: true, autoDelete: true });
await ch.bindQueue(q.queue, 'celeryev', '#');
await ch.consume(
  q.queue,
  (m) => {
    const b = JSON.parse(m.content.toString());
    const list = Array.isArray(b) ? b : [b];
    for (const e of list)
      if (!e.type.startsWith('worker'))
        console.log(m.fields.routingKey, m.properties.contentType, JSON.stringify(e).slice(0, 600));
  },
  { noAck: true },
);
setTimeout(() => process.exit(0), 25000);
